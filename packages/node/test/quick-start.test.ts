import { spawn } from "node:child_process"
import { readdirSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { REPOSITORY_ROOT, runCli, startGateway, tempDir } from "./support/gateway-process.js"
import { admin } from "./support/webhooks.js"

describe("the README quick start", () => {
  it("`npm start` prints a send-test line that works when pasted into a second terminal", async () => {
    const dir = tempDir()
    const gateway = await startGateway(
      { PORT: "0", HOOKGATE_DB: join(dir, "hookgate.db"), HOOKGATE_OUTBOX: join(dir, "outbox") },
      { npmStart: true }
    )
    try {
      const output = gateway.output()
      expect(output).toContain("Development settings")
      // Listening on loopback only, with an admin token nobody else knows, printed once at start.
      expect(gateway.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      expect(output).not.toContain("dev-admin-token")
      const token = /HOOKGATE_ADMIN_TOKEN=(\S+)/.exec(output)?.[1] ?? ""
      expect(token.length).toBeGreaterThanOrEqual(24)
      expect((await admin(gateway.url, "/admin/stats", {}, token)).status).toBe(200)
      expect((await admin(gateway.url, "/admin/stats", {}, "dev-admin-token")).status).toBe(401)
      const line = /^\s+(STRIPE_WEBHOOK_SECRET=\S+ PORT=\d+) npx @hookgate\/node (send-test .*)$/m.exec(output)
      expect(line, output).not.toBeNull()
      const env = Object.fromEntries(line![1]!.split(" ").map((pair) => pair.split("=") as [string, string]))
      const { code, stderr, stdout } = await runCli(env, line![2]!.split(" "))
      expect(code, stdout + stderr).toBe(0)
      expect(stdout).toMatch(/summary: .*sent 1/)
      expect(readdirSync(join(dir, "outbox")).filter((f) => f.endsWith(".eml"))).toHaveLength(1)
    } finally {
      await gateway.stop()
    }
  }, 120_000)

  it("`npx @hookgate/node` resolves to the gateway's command from the repository root", async () => {
    const help = await new Promise<string>((resolve) => {
      const child = spawn("npx", ["--no-install", "@hookgate/node", "--help"], { cwd: REPOSITORY_ROOT })
      let out = ""
      child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()))
      child.on("exit", () => resolve(out))
    })
    expect(help).toContain("send-test")
    expect(help).toContain("demo")
  })
})
