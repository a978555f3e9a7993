import { startResendTestServer } from "@hookgate/mailer-resend/testing"
import { checkoutSessionEvent } from "@hookgate/provider-stripe/testing"
import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { ADMIN_TOKEN, baseEnv, resendEnv, startGateway, tempDir } from "./support/gateway-process.js"
import { admin, deliver, signStripe } from "./support/webhooks.js"

/**
 * A signed event whose metadata carries a line break reaches the email's subject
 * (the default renderer names the product). Core refuses it before any mailer:
 * the same answer, order status and alert whichever mailer the gateway runs.
 */

const injected = (id: string) =>
  checkoutSessionEvent(`evt_${id}`, "checkout.session.completed", {
    id: `cs_test_${id}`,
    email: "buyer@example.com",
    amountTotal: 4900,
    currency: "usd",
    metadata: { product_id: "Widget\r\nBcc: victim@example.com" }
  })

const refusedEverywhere = async (env: Record<string, string>, id: string) => {
  const gateway = await startGateway({ ...env, HOOKGATE_SWEEP_EVERY: "1 hour" })
  try {
    const signed = await signStripe(injected(id))
    expect(await deliver(gateway.url, signed)).toMatchObject({ status: 200, body: { status: "failed", orderId: signed.orderKey } })
    const order = await admin(gateway.url, `/admin/orders/${encodeURIComponent(signed.orderKey)}`, {}, ADMIN_TOKEN)
    expect(order.body.order).toMatchObject({ status: "failed", lastError: expect.stringContaining("subject holds a line break") })
    const alerts = await admin(gateway.url, "/admin/alerts", {}, ADMIN_TOKEN)
    expect(alerts.body.alerts).toEqual([expect.objectContaining({ orderKey: signed.orderKey })])
    // The value itself (the forged header) is in no log line.
    expect(gateway.output()).not.toContain("victim@example.com")
  } finally {
    await gateway.stop()
  }
}

describe("a line break in a header-bound value", () => {
  it("is refused before the Resend mailer is called: the order fails with an alert, Resend receives nothing", async () => {
    const resend = await startResendTestServer()
    try {
      await refusedEverywhere({ ...baseEnv(tempDir()), ...resendEnv(resend) }, "crlf_resend")
      expect(resend.emails).toEqual([])
    } finally {
      await resend.close()
    }
  }, 60_000)

  it("is refused the same way with the outbox mailer, which writes no file", async () => {
    const dir = tempDir()
    await refusedEverywhere(baseEnv(dir), "crlf_outbox")
    const outbox = join(dir, "outbox")
    expect(existsSync(outbox) ? readdirSync(outbox) : []).toEqual([])
  }, 60_000)
})
