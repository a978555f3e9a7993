import { describe, expect, it } from "vitest"
import { ADMIN_TOKEN, baseEnv, runCli, startGateway, STRIPE_SECRET, tempDir } from "./support/gateway-process.js"
import { admin } from "./support/webhooks.js"

describe("the hookgate command", () => {
  it("demo prints one email per order, the duplicates it prevented and the recovered retry, and exits 0", async () => {
    const { code, stdout } = await runCli({}, ["demo"])
    expect(code).toBe(0)
    expect(stdout).toMatch(/orders\s+10/)
    expect(stdout).toMatch(/emails in the outbox\s+10/)
    expect(stdout).toMatch(/retries recovered by the sweep\s+1/)
    const prevented = Number(/duplicates prevented\s+(\d+)/.exec(stdout)?.[1])
    expect(prevented).toBeGreaterThan(10)
    expect(stdout).toContain("one email per order")
    // Every provider's orders, Paddle's with the email its (stand-in) API gave.
    for (const key of ["stripe:cs_test_demo-stripe-1", "creem:ord_demo-creem-1", "lemonsqueezy:demo-lemonsqueezy-1", "polar:ord_demo-polar-1", "paddle:txn_demo-paddle-1"]) {
      expect(stdout).toContain(key)
    }
  }, 60_000)

  it("send-test posts a signed event with replays to a running gateway and prints each answer", async () => {
    const dir = tempDir()
    const env = baseEnv(dir)
    const gateway = await startGateway(env)
    try {
      const port = new URL(gateway.url).port
      const { code, stdout } = await runCli(
        { STRIPE_WEBHOOK_SECRET: STRIPE_SECRET, PORT: port },
        ["send-test", "stripe", "--replays", "4", "--concurrency", "2"]
      )
      expect(code).toBe(0)
      const statuses = stdout.split("\n").map((line) => /^\d+\s+(\d{3})\s+(\w+)$/.exec(line.trim())).filter((m) => m !== null)
      expect(statuses).toHaveLength(5)
      expect(statuses.filter((m) => m![2] === "sent")).toHaveLength(1)
      expect(statuses.every((m) => ["sent", "duplicate", "in_progress"].includes(m![2]!))).toBe(true)
      expect(stdout).toMatch(/summary: .*sent 1/)
      const stats = await admin(gateway.url, "/admin/stats", {}, ADMIN_TOKEN)
      expect(stats.body.orders.sent).toBe(1)

      // The operator commands read the same database.
      const list = await runCli(env, ["orders", "list", "--status", "sent"])
      expect(list.code).toBe(0)
      expect(list.stdout).toMatch(/^order\s+status\s+failures\s/m)
      expect(list.stdout).toMatch(/stripe:cs_test_\w+\s+sent\s+0/)
      const key = /(stripe:cs_test_\w+)/.exec(list.stdout)![1]!
      const show = await runCli(env, ["orders", "show", key])
      expect(JSON.parse(show.stdout).order.status).toBe("sent")
      const refused = await runCli(env, ["orders", "retry", key])
      expect(refused.code).not.toBe(0)
      expect(refused.stdout).toContain("sent, 0 failed attempt(s) recorded")
      expect(refused.stdout + refused.stderr).toContain("--confirm")
      const notRetryable = await runCli(env, ["orders", "retry", key, "--confirm"])
      expect(notRetryable.code).not.toBe(0)
      expect(notRetryable.stdout + notRetryable.stderr).toContain("only capped or failed orders")
      const alerts = await runCli(env, ["alerts", "list"])
      expect(alerts.stdout).toContain("no alerts")
    } finally {
      await gateway.stop()
    }
  }, 60_000)

  it("send-test without the secret says which setting is missing", async () => {
    const { code, stderr, stdout } = await runCli({}, ["send-test", "creem"])
    expect(code).not.toBe(0)
    expect(stdout + stderr).toContain("CREEM_WEBHOOK_SECRET")
  })

  it("serve refuses to start without any provider secret", async () => {
    const dir = tempDir()
    const { code, stderr, stdout } = await runCli({ PORT: "0", HOOKGATE_DB: `${dir}/db` }, ["serve"])
    expect(code).not.toBe(0)
    expect(stdout + stderr).toContain("no provider is configured")
    for (const name of ["STRIPE_WEBHOOK_SECRET", "CREEM_WEBHOOK_SECRET", "LEMONSQUEEZY_WEBHOOK_SECRET", "POLAR_WEBHOOK_SECRET", "PADDLE_WEBHOOK_SECRET"]) {
      expect(stdout + stderr).toContain(name)
    }
  })
})
