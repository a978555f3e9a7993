import { spawn } from "node:child_process"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { baseEnv, REPOSITORY_ROOT, startGateway, tempDir } from "./support/gateway-process.js"
import { deliver, signStripe, stripeBody } from "./support/webhooks.js"

const HOLD_MS = 3000

/** Another process that takes SQLite's write lock (`BEGIN IMMEDIATE`) and holds it for `HOLD_MS`. */
const holdWriteLock = (db: string) => {
  const script = `
    const Database = require("better-sqlite3")
    const db = new Database(${JSON.stringify(db)})
    db.exec("BEGIN IMMEDIATE")
    console.log("locked")
    setTimeout(() => { db.exec("COMMIT"); console.log("released"); db.close() }, ${HOLD_MS})
  `
  const child = spawn(process.execPath, ["-e", script], { cwd: REPOSITORY_ROOT, stdio: ["ignore", "pipe", "inherit"] })
  const locked = new Promise<void>((resolve) => child.stdout!.on("data", (chunk: Buffer) => chunk.toString().includes("locked") && resolve()))
  const exited = new Promise((resolve) => child.on("exit", resolve))
  return { locked, exited }
}

describe("SQLite held by another process", () => {
  it("/healthz answers within 100 ms (median) while a webhook waits for the write lock, and the webhook is sent once it frees", async () => {
    const dir = tempDir()
    const env = { ...baseEnv(dir), HOOKGATE_SWEEP_EVERY: "1 hour" }
    const gateway = await startGateway(env)
    try {
      // Warm up the connection and the route before measuring.
      for (let i = 0; i < 5; i++) await fetch(`${gateway.url}/healthz`)
      const locker = holdWriteLock(join(dir, "hookgate.db"))
      await locker.locked
      const webhook = deliver(gateway.url, await signStripe(stripeBody("behind-a-lock")))
      const latencies: Array<number> = []
      const until = Date.now() + HOLD_MS - 500
      while (Date.now() < until) {
        const startedAt = performance.now()
        const response = await fetch(`${gateway.url}/healthz`)
        await response.text()
        latencies.push(performance.now() - startedAt)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      // Blocked in the driver, the gateway answered nothing for the whole hold (3 probes in 2.5 s, one of ~2.5 s).
      // The median is held to the 100 ms promise; the maximum gets room for a CPU-starved test machine.
      const shown = latencies.map((l) => l.toFixed(0)).join(" ")
      const sorted = [...latencies].sort((a, b) => a - b)
      expect(latencies.length, shown).toBeGreaterThan(10)
      expect(sorted[Math.floor(sorted.length / 2)]!, shown).toBeLessThan(100)
      expect(sorted[sorted.length - 1]!, shown).toBeLessThan(1000)
      expect((await webhook).body.status).toBe("sent")
      await locker.exited
    } finally {
      await gateway.stop()
    }
  }, 180_000)
})
