import { startResendTestServer } from "@hookgate/mailer-resend/testing"
import { describe, expect, it } from "vitest"
import { baseEnv, type GatewayProcess, resendEnv, startGateway, tempDir } from "./support/gateway-process.js"
import { admin, deliver, signStripe, stripeBody } from "./support/webhooks.js"

describe("graceful shutdown", () => {
  it("SIGTERM lets an in-flight send finish, answers it, and exits 0", async () => {
    const resend = await startResendTestServer()
    let gatewayToKill: GatewayProcess | undefined
    try {
      const env = { ...baseEnv(tempDir()), ...resendEnv(resend) }
      const gateway = await startGateway(env)
      gatewayToKill = gateway
      const signed = await signStripe(stripeBody("shutdown"))
      resend.delayNext(1, 1000)
      const answer = deliver(gateway.url, signed)
      while (resend.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10))
      gateway.child.kill("SIGTERM")
      expect(await answer).toEqual({ status: 200, body: { status: "sent", orderId: signed.orderKey } })
      expect(await gateway.exited).toBe(0)
      // Restarted, the order is sent: the marker was written before the database closed.
      const again = await startGateway(env)
      try {
        const order = await admin(again.url, `/admin/orders/${encodeURIComponent(signed.orderKey)}`)
        expect(order.body.order.status).toBe("sent")
      } finally {
        await again.stop()
      }
    } finally {
      await gatewayToKill?.stop("SIGKILL")
      await resend.close()
    }
  }, 30_000)
})
