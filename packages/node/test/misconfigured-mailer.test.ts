import { startResendTestServer, type ResendTestServerShape } from "@hookgate/mailer-resend/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { baseEnv, type GatewayProcess, resendEnv, startGateway, tempDir } from "./support/gateway-process.js"
import { admin, deliver, signStripe, stripeBody } from "./support/webhooks.js"

/**
 * A revoked Resend key, end to end in a real process: paid webhooks are answered
 * non-2xx (the provider retries), no order fails or counts an attempt, the owner
 * hears of it, and once the key works again every buyer gets one email through
 * the sweep, without an operator.
 */

let resend: ResendTestServerShape
let gateway: GatewayProcess

beforeAll(async () => {
  resend = await startResendTestServer()
  gateway = await startGateway({
    ...baseEnv(tempDir()),
    ...resendEnv(resend),
    HOOKGATE_SWEEP_EVERY: "200 millis",
    HOOKGATE_MAILER_PROBE_EVERY: "1 second"
  })
})
afterAll(async () => {
  await gateway?.stop()
  await resend?.close()
})

const until = async (check: () => Promise<boolean>, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check()) return true
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return false
}

describe("a revoked mail key", () => {
  it("holds 10 paid orders uncounted (503), alerts, and sends all 10 once the key works again", async () => {
    // The key is revoked: Resend answers 401 to every request until it is fixed.
    resend.failNext(100_000, { status: 401, name: "restricted_api_key", message: "This API key is restricted" })
    const orders = await Promise.all(Array.from({ length: 10 }, (_, i) => signStripe(stripeBody(`revoked-${i}`))))
    const answers = []
    for (const signed of orders) answers.push(await deliver(gateway.url, signed))
    expect(answers.map((a) => a.status)).toEqual(orders.map(() => 503))
    expect(answers.every((a) => a.body.status === "unavailable" && a.body.reason === "mailer_misconfigured")).toBe(true)

    const listed = await admin(gateway.url, "/admin/orders?limit=100")
    const mine = listed.body.orders.filter((o: { key: string }) => o.key.startsWith("stripe:cs_test_revoked-"))
    expect(mine).toHaveLength(10)
    for (const order of mine) expect({ status: order.status, attempts: order.attempts }).toEqual({ status: "pending", attempts: 0 })

    const health = await fetch(`${gateway.url}/healthz`)
    expect(health.status).toBe(200)
    expect(await health.json()).toMatchObject({ mailer: "misconfigured", errorClass: "Misconfigured", code: "restricted_api_key" })
    const stats = await admin(gateway.url, "/admin/stats")
    expect(stats.body).toMatchObject({ mailer: "misconfigured", code: "restricted_api_key" })
    const alerts = await admin(gateway.url, "/admin/alerts")
    expect(JSON.stringify(alerts.body)).toContain("mailer_misconfigured")
    expect(gateway.output()).toMatch(/"message":"the mailer is misconfigured[^\n]*"logLevel":"ERROR"/)
    // The breaker: far fewer calls to Resend than webhooks.
    expect(resend.requests.length).toBeLessThan(10)

    // The key works again: no operator action, the probe and the sweep send every held order.
    resend.reset()
    const allSent = await until(async () => {
      const stats = await admin(gateway.url, "/admin/stats")
      return stats.body.mailer === "ok" && stats.body.orders.pending === 0
    }, 15_000)
    expect(allSent).toBe(true)
    for (const signed of orders) {
      expect(resend.emails.filter((e) => e.idempotencyKey === `hookgate/order/${signed.orderKey}`)).toHaveLength(1)
    }
    const after = await admin(gateway.url, "/admin/orders?limit=100")
    const sent = after.body.orders.filter((o: { key: string; status: string }) => o.key.startsWith("stripe:cs_test_revoked-"))
    expect(sent.map((o: { status: string }) => o.status)).toEqual(orders.map(() => "sent"))
  }, 40_000)
})
