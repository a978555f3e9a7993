import { startResendTestServer } from "@hookgate/mailer-resend/testing"
import { describe, expect, it } from "vitest"
import { admin } from "./support/webhooks.js"
import { baseEnv, startGateway, tempDir } from "./support/gateway-process.js"
import { deliver, signStripe, stripeBody } from "./support/webhooks.js"

describe("graceful shutdown", () => {
  it("SIGTERM lets an in-flight send finish, answers it, and exits 0", async () => {
    const resend = await startResendTestServer()
    try {
      const env = { ...baseEnv(tempDir()), HOOKGATE_MAILER: "resend", RESEND_API_KEY: resend.apiKey, RESEND_BASE_URL: resend.url }
      const gateway = await startGateway(env)
      const signed = await signStripe(stripeBody("shutdown"))
      resend.delayNext(1, 1000)
      const answer = deliver(gateway.url, signed)
      while (resend.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10))
      gateway.child.kill("SIGTERM")
      expect(await answer).toEqual({ status: 200, body: { status: "sent", orderId: signed.orderKey } })
      expect(await gateway.exited).toBe(0)
      // Restarted, the order is sent: the marker was written before the database closed.
      const again = await startGateway(env)
      const order = await admin(again.url, `/admin/orders/${encodeURIComponent(signed.orderKey)}`)
      expect(order.body.order.status).toBe("sent")
      await again.stop()
    } finally {
      await resend.close()
    }
  }, 30_000)
})
