import { describe, expect, it } from "vitest"
import { ADMIN_TOKEN, baseEnv, runCli, startGateway, STRIPE_SECRET, tempDir } from "./support/gateway-process.js"
import { deliver, signStripe, stripeBody } from "./support/webhooks.js"

/** The `hookgate` command as a user types it: its help, its refusals, its exit codes. */

const freePortEnv = async () => {
  // A port nothing listens on: one the system handed out and took back.
  const { createServer } = await import("node:net")
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as { port: number }).port
  await new Promise((resolve) => server.close(resolve))
  return String(port)
}

describe("hookgate --help", () => {
  it("lists the commands first, in 80 columns, with <command> in the usage, --config, examples, and a stats command", async () => {
    const { code, stdout } = await runCli({}, ["--help"])
    expect(code).toBe(0)
    const lines = stdout.trimEnd().split("\n")
    expect(lines.filter((l) => l.length > 80)).toEqual([])
    expect(lines.length).toBeLessThanOrEqual(45)
    expect(stdout).toContain("Usage: hookgate <command> [options]")
    const commands = lines.indexOf("Commands:")
    const options = lines.findIndex((l) => l.startsWith("Options"))
    expect(commands).toBeGreaterThan(0)
    expect(commands).toBeLessThan(options)
    expect(commands).toBeLessThan(6)
    for (const command of ["serve", "sweep", "stats", "orders list", "send-test", "config check", "demo"]) {
      expect(stdout).toMatch(new RegExp(`^  ${command}\\s`, "m"))
    }
    expect(stdout).toContain("--config <path>")
    expect(stdout).toContain("Examples:")
    // None of the parser's built-in flags crowd it.
    expect(stdout).not.toMatch(/--completions|--wizard|--log-level/)
  })

  it("`hookgate help`, `hookgate` alone and `-h` print the same help; -v and --version print the version", async () => {
    // Independent processes, started together (each start is seconds of module loading on a busy machine).
    const [help, ...others] = await Promise.all([["--help"], ["help"], [], ["-h"]].map((args) => runCli({}, args)))
    for (const [i, args] of [["help"], [], ["-h"]].entries()) {
      const run = others[i]!
      expect({ args, code: run.code, same: run.stdout === help!.stdout }).toEqual({ args, code: 0, same: true })
    }
    const versions = await Promise.all(["-v", "--version"].map(async (flag) => ({ flag, run: await runCli({}, [flag]) })))
    for (const { flag, run } of versions) {
      expect({ flag, code: run.code, out: run.stdout.trim() }).toEqual({ flag, code: 0, out: "0.1.0" })
    }
  })

  it("a command's help names it in full (not `$ list`), with its options and --config", async () => {
    const [group, ...commands] = await Promise.all([["orders", "--help"], ["orders", "list", "--help"], ["help", "orders", "list"]].map((args) => runCli({}, args)))
    for (const { code, stdout } of commands) {
      expect(code).toBe(0)
      expect(stdout.replace(/\s+/g, " ")).toContain("Usage: hookgate orders list [--status <status>] [--limit <n>] [--config <path>]")
      expect(stdout).not.toContain("$ list")
      expect(stdout.split("\n").filter((l) => l.length > 80)).toEqual([])
    }
    expect(group!.stdout).toContain("Usage: hookgate orders <command>")
    expect(group!.stdout).toMatch(/^  orders retry <key> --confirm\s/m)
  })
})

describe("counts on the command line", () => {
  it("orders list --limit takes a positive whole number and says so otherwise", async () => {
    const env = { HOOKGATE_DB: `${tempDir()}/db` }
    const refused = await Promise.all(["0", "-5", "abc", "2.5"].map(async (limit) => ({ limit, ...await runCli(env, ["orders", "list", "--limit", limit]) })))
    for (const { limit, code, stderr, stdout } of refused) {
      expect({ limit, code }).toEqual({ limit, code: 1 })
      expect(stdout + stderr).toContain(`--limit must be a whole number, at least 1 (got "${limit}")`)
      expect(stdout + stderr).not.toContain("is not a integer")
    }
    expect((await runCli(env, ["orders", "list", "--limit", "3"])).code).toBe(0)
  })
})

describe("send-test", () => {
  it("refuses --replays -1 before posting anything", async () => {
    const { code, stderr, stdout } = await runCli({ STRIPE_WEBHOOK_SECRET: STRIPE_SECRET }, ["send-test", "stripe", "--replays", "-1"])
    expect(code).toBe(1)
    expect(stdout + stderr).toContain("--replays must be a whole number, at least 0")
    expect(stdout).not.toContain("posting")
  })

  it("with no gateway says so, and how to start one, as sweep does", async () => {
    const { code, stderr } = await runCli({ STRIPE_WEBHOOK_SECRET: STRIPE_SECRET, PORT: await freePortEnv() }, ["send-test", "stripe"])
    expect(code).toBe(1)
    expect(stderr).toMatch(/no gateway answered at http:\/\/127\.0\.0\.1:\d+\. Start it \(`hookgate serve`/)
    expect(stderr).not.toContain("Transport error")
  })

  it("exits non-zero when the gateway refuses the event (a secret that is not the gateway's: 401)", async () => {
    const gateway = await startGateway({ ...baseEnv(tempDir()), HOOKGATE_SWEEP_EVERY: "1 hour" })
    try {
      const { code, stderr, stdout } = await runCli(
        { STRIPE_WEBHOOK_SECRET: "whsec_not_the_gateways", PORT: new URL(gateway.url).port },
        ["send-test", "stripe", "--replays", "1"]
      )
      expect(stdout).toMatch(/^1\s+401\s+unauthorized$/m)
      expect(code).toBe(1)
      expect(stderr).toContain("2 of 2 answer(s) were not 2xx (first: 401 unauthorized): is STRIPE_WEBHOOK_SECRET the running gateway's?")
    } finally {
      await gateway.stop()
    }
  }, 60_000)
})

describe("config check", () => {
  it("--dev checks what `serve --dev` (npm start) runs with; its first line and its verdict go to stderr, the table to stdout", async () => {
    const env = { HOOKGATE_DB: `${tempDir()}/db` }
    const plain = await runCli(env, ["config", "check"])
    expect(plain.code).toBe(1)
    expect(plain.stderr.split("\n")[0]).toMatch(/^hookgate config check: database /)
    expect(plain.stderr).toContain("not servable: no provider is configured")
    expect(plain.stdout).not.toContain("not servable")
    expect(plain.stdout).not.toContain("hookgate config check:")

    const dev = await runCli(env, ["config", "check", "--dev"])
    expect(dev.code, dev.stderr).toBe(0)
    expect(dev.stderr.split("\n")[0]).toMatch(/^hookgate config check --dev: database /)
    expect(dev.stdout).toMatch(/^HOST\s+127\.0\.0\.1$/m)
    expect(dev.stdout).toMatch(/^providers\s+stripe, creem, lemonsqueezy, polar$/m)
    expect(dev.stdout).toMatch(/^HOOKGATE_ADMIN_TOKEN\s+<redacted>$/m)
    expect(dev.stdout).not.toContain("whsec_dev")
    expect(dev.stdout).not.toMatch(/dev_lemonsqueezy|polar_whs_dev/)
  })
})

describe("serve", () => {
  it("--dev prints a sweep line with the admin token that the running gateway accepts; SIGTERM logs its shutdown", async () => {
    const dir = tempDir()
    const env = { PORT: "0", HOOKGATE_DB: `${dir}/db`, HOOKGATE_OUTBOX: `${dir}/outbox`, HOOKGATE_SWEEP_EVERY: "1 hour" }
    const gateway = await startGateway(env, { args: ["serve", "--dev"] })
    try {
      const line = /^\s+HOOKGATE_ADMIN_TOKEN=(dev-\S+) PORT=(\d+) npx @hookgate\/node sweep$/m.exec(gateway.output())
      expect(line, gateway.output()).not.toBeNull()
      expect(gateway.output()).toContain("npx @hookgate/node config check --dev")
      expect(gateway.output()).not.toContain("npm start only")
      const swept = await runCli({ HOOKGATE_DB: `${dir}/db`, HOOKGATE_ADMIN_TOKEN: line![1]!, PORT: line![2]! }, ["sweep"])
      expect(swept.code, swept.stderr).toBe(0)
      expect(swept.stdout).toMatch(/scanned/)
    } finally {
      expect(await gateway.stop("SIGTERM")).toBe(0)
    }
    const lines = gateway.stdout().split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as { message: string })
    expect(lines.map((l) => l.message)).toContain("shutting down")
  }, 90_000)
})

describe("stats and orders list", () => {
  it("stats prints the store's counts; orders list names its column for what it counts (failures)", async () => {
    const dir = tempDir()
    const env = baseEnv(dir)
    const gateway = await startGateway({ ...env, HOOKGATE_SWEEP_EVERY: "1 hour" })
    try {
      expect((await deliver(gateway.url, await signStripe(stripeBody("stats-one")))).body.status).toBe("sent")
    } finally {
      await gateway.stop()
    }
    const stats = await runCli(env, ["stats"])
    expect(stats.code, stats.stderr).toBe(0)
    expect(stats.stdout).toMatch(/^orders sent\s+1$/m)
    expect(stats.stdout).toMatch(/^orders pending\s+0$/m)
    expect(stats.stdout).toMatch(/^\s+undelivered\s+0$/m)
    const list = await runCli(env, ["orders", "list"])
    expect(list.stdout).toMatch(/^order\s+status\s+failures\s+next attempt\s+last error\s+source$/m)
    expect(list.stdout).not.toMatch(/\battempts\b/)
    void ADMIN_TOKEN
  }, 60_000)
})
