import { describe, expect, it } from "vitest"
import { baseEnv, runCli, startGateway, tempDir } from "./support/gateway-process.js"
import { admin, deliver, signStripe, stripeBody } from "./support/webhooks.js"

/**
 * A signed, paid Stripe session without an email: answered 500 `unfulfillable`
 * (Stripe retries), stored as a receipt with the decoding error and the session
 * id, an owner alert raised, and `hookgate orders` shows it.
 */
describe("a paid event that cannot become an order", () => {
  it("is answered 500, stored with its error and object id, alerted, and shown by `hookgate orders`", async () => {
    const env = baseEnv(tempDir())
    const gateway = await startGateway(env)
    try {
      const signed = await signStripe(stripeBody("noemail", ""))
      const answer = await deliver(gateway.url, signed)
      expect(answer.status).toBe(500)
      expect(answer.body).toMatchObject({ status: "unfulfillable", objectId: "cs_test_noemail" })
      // Stripe's retry is stored once more, not lost.
      expect((await deliver(gateway.url, signed)).status).toBe(500)
      const alerts = await admin(gateway.url, "/admin/alerts")
      expect(JSON.stringify(alerts.body)).toContain("unfulfillable")
      expect(gateway.output()).toMatch(/"message":"a verified paying event could not be turned into an order"[^\n]*"logLevel":"ERROR"/)
    } finally {
      await gateway.stop()
    }
    const list = await runCli(env, ["orders", "list"])
    expect(list.code).toBe(0)
    expect(list.stdout).toContain("1 paid event(s) made no order")
    const unfulfillable = await runCli(env, ["orders", "unfulfillable"])
    expect(unfulfillable.code).toBe(0)
    expect(unfulfillable.stdout).toMatch(/stripe\s+evt_\S+\s+cs_test_noemail\s+unfulfillable\s+.*email/)
  }, 60_000)
})
