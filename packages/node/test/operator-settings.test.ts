import { startResendTestServer } from "@hookgate/mailer-resend/testing"
import { existsSync, readdirSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { ADMIN_TOKEN, baseEnv, CREEM_SECRET, resendEnv, runCli, startGateway, STRIPE_SECRET, tempDir } from "./support/gateway-process.js"
import { admin, deliver, signStripe, stripeBody } from "./support/webhooks.js"

const noStackTrace = (text: string) => expect(text).not.toMatch(/^\s+at /m)

describe("settings are validated when the gateway is built", () => {
  it("zero durations are refused with one line per problem, and serve exits instead of hanging", async () => {
    const env = {
      ...baseEnv(tempDir()),
      HOOKGATE_LEASE: "0 seconds",
      HOOKGATE_SWEEP_EVERY: "0 seconds",
      HOOKGATE_CAMPAIGN_POLL: "0 seconds"
    }
    const check = await runCli(env, ["config", "check"])
    expect(check.code).not.toBe(0)
    const problems = check.stderr.split("\n").filter((line) => /^\s+HOOKGATE_/.test(line))
    expect(problems.map((p) => p.trim().split(":")[0]).sort()).toEqual(["HOOKGATE_CAMPAIGN_POLL", "HOOKGATE_LEASE", "HOOKGATE_SWEEP_EVERY"])
    noStackTrace(check.stderr)

    // Before, serve spun at full CPU before listening; now it exits (a hang fails on the test's timeout).
    const serve = await runCli(env, ["serve"])
    expect(serve.code).not.toBe(0)
    expect(serve.stderr).toContain("HOOKGATE_SWEEP_EVERY: must be a positive duration")
    noStackTrace(serve.stderr + serve.stdout)
  }, 120_000)

  it("a lease that does not outlast the send timeout, or Resend's timeout, is refused; Resend without its key too", async () => {
    const short = await runCli({ ...baseEnv(tempDir()), HOOKGATE_LEASE: "10 seconds", HOOKGATE_SEND_TIMEOUT: "10 seconds" }, ["config", "check"])
    expect(short.code).not.toBe(0)
    expect(short.stderr).toMatch(/HOOKGATE_LEASE: must exceed the send timeout \(10s\) by at least 1s/)
    const resend = await runCli(
      { ...baseEnv(tempDir()), HOOKGATE_MAILER: "resend", HOOKGATE_LEASE: "5 seconds" },
      ["config", "check"]
    )
    expect(resend.code).not.toBe(0)
    expect(resend.stderr).toMatch(/HOOKGATE_LEASE: must exceed RESEND_TIMEOUT \(10s\)/)
    expect(resend.stderr).toContain("RESEND_API_KEY: is not set")
  }, 120_000)

  it("`config check` prints the effective settings with every secret redacted", async () => {
    const env = { ...baseEnv(tempDir()), HOOKGATE_METRICS_TOKEN: "metrics-secret-value" }
    const { code, stderr, stdout } = await runCli(env, ["config", "check"])
    expect(code, stderr).toBe(0)
    expect(stdout).toMatch(/HOOKGATE_LEASE\s+5m/)
    expect(stdout).toMatch(/STRIPE_WEBHOOK_SECRET\s+<redacted> \(1 secret\)/)
    expect(stdout).toMatch(/HOOKGATE_METRICS_TOKEN\s+<redacted>/)
    for (const secret of [STRIPE_SECRET, CREEM_SECRET, ADMIN_TOKEN, "metrics-secret-value"]) {
      expect(stdout + stderr).not.toContain(secret)
    }
  }, 60_000)

  it("a settings file (--config or HOOKGATE_CONFIG, JSON or dotenv) sits under the environment", async () => {
    const dir = tempDir()
    const json = join(dir, "hookgate.json")
    writeFileSync(json, JSON.stringify({ HOOKGATE_DB: join(dir, "from-file.db"), HOOKGATE_LEASE: "7 minutes", STRIPE_WEBHOOK_SECRET: "whsec_file" }))
    const viaFlag = await runCli({}, ["config", "check", "--config", json])
    expect(viaFlag.code, viaFlag.stderr).toBe(0)
    expect(viaFlag.stdout).toMatch(/HOOKGATE_LEASE\s+7m/)
    expect(viaFlag.stdout).toContain(join(dir, "from-file.db"))
    const dotenv = join(dir, "hookgate.env")
    writeFileSync(dotenv, `HOOKGATE_DB=${join(dir, "dotenv.db")}\nHOOKGATE_LEASE="9 minutes"\nSTRIPE_WEBHOOK_SECRET=whsec_file\n`)
    const viaEnv = await runCli({ HOOKGATE_CONFIG: dotenv, HOOKGATE_LEASE: "8 minutes" }, ["config", "check"])
    expect(viaEnv.code, viaEnv.stderr).toBe(0)
    expect(viaEnv.stdout).toMatch(/HOOKGATE_LEASE\s+8m/) // the environment wins
    expect(viaEnv.stdout).toContain(join(dir, "dotenv.db"))
    writeFileSync(json, JSON.stringify({ HOOKGATE_LEASE: ["not", "a", "value"] }))
    const bad = await runCli({}, ["config", "check", `--config=${json}`])
    expect(bad.code).not.toBe(0)
    expect(bad.stderr.trim().split("\n")).toHaveLength(1)
    expect(bad.stderr).toContain(`settings file ${json}`)
  }, 120_000)
})

describe("the CLI's manners", () => {
  it("a usage error is printed once, with a non-zero exit code", async () => {
    const { code, stderr, stdout } = await runCli({}, ["orders", "frobnicate"])
    expect(code).not.toBe(0)
    const all = stdout + stderr
    expect(all.match(/Invalid subcommand/g)).toHaveLength(1)
    expect(all).not.toContain("{\"_tag\"")
  }, 60_000)

  it("--help carries no colour codes when piped or with NO_COLOR", async () => {
    for (const env of [{}, { NO_COLOR: "1" }]) {
      const { code, stdout } = await runCli(env, ["--help"])
      expect(code).toBe(0)
      expect(stdout).toContain("Usage: hookgate <command>")
      expect(stdout).not.toContain("\u001b[")
    }
  }, 120_000)

  it("an expected refusal is one line on stderr, without a stack trace", async () => {
    const env = baseEnv(tempDir())
    const { code, stderr, stdout } = await runCli(env, ["orders", "show", "stripe:cs_missing"])
    expect(code).not.toBe(0)
    expect(stderr.trim().split("\n")).toEqual([
      `hookgate orders show: database ${env.HOOKGATE_DB} (SQLite), mailer outbox (${env.HOOKGATE_OUTBOX}: files, nobody is emailed)`,
      "hookgate: no order stripe:cs_missing"
    ])
    expect(stdout).toBe("")
  }, 60_000)

  it("a port in use is said in those words", async () => {
    const holder = createServer()
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve))
    const port = (holder.address() as { port: number }).port
    try {
      const { code, stderr, stdout } = await runCli({ ...baseEnv(tempDir()), PORT: String(port), HOST: "127.0.0.1" }, ["serve"])
      expect(code).not.toBe(0)
      expect(stderr).toContain(`hookgate: port ${port} is in use on 127.0.0.1`)
      noStackTrace(stderr + stdout)
    } finally {
      holder.close()
    }
  }, 120_000)
})

describe("commands that send go through the running gateway's mailer", () => {
  it("`hookgate sweep` from a shell without the gateway's mailer settings never sends through the outbox", async () => {
    const resend = await startResendTestServer()
    const dir = tempDir()
    const db = join(dir, "hookgate.db")
    const outbox = join(dir, "outbox")
    const gatewayEnv = {
      ...baseEnv(dir),
      ...resendEnv(resend),
      HOOKGATE_SWEEP_EVERY: "1 hour"
    }
    // The operator's shell: the same database and admin token, but no mailer settings.
    const shellEnv = { HOOKGATE_DB: db, HOOKGATE_OUTBOX: outbox, HOOKGATE_ADMIN_TOKEN: ADMIN_TOKEN }
    let gateway = await startGateway(gatewayEnv)
    try {
      resend.failNext(1, { status: 422, name: "validation_error", message: "scripted rejection" })
      const signed = await signStripe(stripeBody("sweep-mailer"))
      expect((await deliver(gateway.url, signed)).body.status).toBe("failed")
      const retry = await runCli(shellEnv, ["orders", "retry", signed.orderKey, "--confirm"])
      expect(retry.code, retry.stderr).toBe(0)
      expect(retry.stdout).toContain("the running gateway sends it at its next sweep")
      expect(retry.stdout).not.toMatch(/run `hookgate sweep`/)
      await gateway.stop()

      // No gateway answers: the sweep refuses instead of sending through this shell's outbox.
      const refused = await runCli({ ...shellEnv, PORT: new URL(gateway.url).port }, ["sweep"])
      expect(refused.code).not.toBe(0)
      expect(refused.stderr).toContain("not swept: no gateway answered")
      expect(existsSync(outbox) ? readdirSync(outbox) : []).toEqual([])

      // The order is due: the restarted gateway's first sweep (at its start) or the one asked
      // for below sends it, whichever comes first, through its own mailer, once.
      const before = resend.emails.length
      gateway = await startGateway({ ...gatewayEnv, PORT: new URL(gateway.url).port })
      const swept = await runCli({ ...shellEnv, PORT: new URL(gateway.url).port }, ["sweep"])
      expect(swept.code, swept.stderr).toBe(0)
      expect(swept.stderr.split("\n")[0]).toContain(`hookgate sweep: database ${db}`)
      const order = await admin(gateway.url, `/admin/orders/${encodeURIComponent(signed.orderKey)}`, {}, ADMIN_TOKEN)
      expect(order.body.order.status).toBe("sent")
      expect(resend.emails.length).toBe(before + 1)
      expect(existsSync(outbox) ? readdirSync(outbox) : []).toEqual([])
    } finally {
      await gateway.stop()
      await resend.close()
    }
  }, 180_000)
})
