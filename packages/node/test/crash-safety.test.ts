import { startResendTestServer } from "@hookgate/mailer-resend/testing"
import { describe, expect, it } from "vitest"
import { baseEnv, type GatewayProcess, resendEnv, startGateway, tempDir } from "./support/gateway-process.js"
import { admin, deliver, signStripe, stripeBody } from "./support/webhooks.js"

const ORDERS = 20
const waitFor = async (check: () => boolean, what: string) => {
  for (let i = 0; i < 500; i++) {
    if (check()) return
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error(`timed out waiting for ${what}`)
}

describe("crash safety", () => {
  it("a gateway killed with SIGKILL mid-send recovers every order with one email each", async () => {
    const resend = await startResendTestServer()
    const env = {
      ...baseEnv(tempDir()),
      ...resendEnv(resend),
      HOOKGATE_LEASE: "6 seconds", // longer than a send may take (RESEND_TIMEOUT plus a margin)
      RESEND_TIMEOUT: "4 seconds",
      HOOKGATE_SWEEP_EVERY: "1 hour" // only the explicit sweep below
    }
    const gateways: Array<GatewayProcess> = []
    try {
      const first = await startGateway(env)
      gateways.push(first)
      const orders = await Promise.all(Array.from({ length: ORDERS }, (_, i) => signStripe(stripeBody(`crash-${i}`))))
      // Resend answers slowly: every send is in flight when the gateway dies.
      resend.delayNext(ORDERS, 2500)
      const inFlight = orders.map((signed) => deliver(first.url, signed).catch(() => ({ status: 0, body: {} })))
      await waitFor(() => resend.requests.length >= ORDERS, "every send to reach the mail server")
      const killedAt = Date.now()
      await first.stop("SIGKILL")
      await Promise.all(inFlight)

      // The restarted gateway sweeps once at start (and may already recover orders whose lease has expired
      // by then, on a slow machine); the explicit sweep once every lease has expired recovers the rest.
      const second = await startGateway(env)
      gateways.push(second)
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, killedAt + 6500 - Date.now())))
      const report = await admin(second.url, "/admin/sweep", { method: "POST" })
      expect(report.status).toBe(200)
      expect(report.body.sent, JSON.stringify(report.body)).toBe(report.body.scanned)
      const sent = await admin(second.url, "/admin/orders?status=sent&limit=100")
      expect(sent.body.orders).toHaveLength(ORDERS)
      for (const signed of orders) {
        expect(resend.emails.filter((e) => e.idempotencyKey === `hookgate/order/${signed.orderKey}`)).toHaveLength(1)
      }
      // The orders the dead process never marked were resent under their keys, and Resend
      // answered those from its idempotency cache instead of sending again.
      const replayed = resend.requests.filter((r) => r.replayed).length
      expect(replayed).toBeGreaterThan(0)
      expect(replayed).toBeLessThanOrEqual(ORDERS)
      expect(resend.emails).toHaveLength(ORDERS)
    } finally {
      await Promise.all(gateways.map((gateway) => gateway.stop("SIGKILL")))
      await resend.close()
    }
  }, 60_000)
})
