import { startSmtpTestServer } from "@hookgate/mailer-smtp/testing"
import { Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { allLeased, orderOf, sleep, waitFor } from "./support/acceptance.js"
import { ADMIN_TOKEN, baseEnv, type GatewayProcess, LEMONSQUEEZY_SECRET, smtpEnv, startGateway, tempDir } from "./support/gateway-process.js"
import { admin, deliver, lemonSqueezyBody, lemonSqueezyRefundBody, signLemonSqueezy } from "./support/webhooks.js"

/**
 * A Lemon Squeezy shop sending through SMTP, over real processes: the `hookgate` binary with
 * LEMONSQUEEZY_WEBHOOK_SECRET and HOOKGATE_MAILER=smtp, against nodemailer's smtp-server
 * (`startSmtpTestServer`, AUTH on a plain local connection: SMTP_SECURITY=none).
 */

const lemonEnv = (dir: string) => {
  const { CREEM_WEBHOOK_SECRET: _c, STRIPE_WEBHOOK_SECRET: _s, ...rest } = baseEnv(dir)
  return { ...rest, LEMONSQUEEZY_WEBHOOK_SECRET: LEMONSQUEEZY_SECRET }
}

describe("Lemon Squeezy + SMTP, through the hookgate binary", () => {
  it("a paid order_created is one email over SMTP; replays, a burst and a refund send nothing more; a forged one is refused", async () => {
    const smtp = await startSmtpTestServer({ security: "none" })
    const gateway = await startGateway({ ...lemonEnv(tempDir()), ...smtpEnv(smtp), HOOKGATE_SWEEP_EVERY: "1 hour" })
    try {
      expect(gateway.output()).toContain("lemonsqueezy (POST")
      expect(gateway.output()).toMatch(/mailer\s+smtp \(127\.0\.0\.1:\d+, none\)/)
      const signed = await signLemonSqueezy(lemonSqueezyBody("1001", "ada@example.com"))
      expect(await deliver(gateway.url, signed)).toEqual({ status: 200, body: { status: "sent", orderId: "lemonsqueezy:1001" } })
      expect(smtp.messages).toHaveLength(1)
      const [message] = smtp.messages
      expect(message).toMatchObject({ to: ["ada@example.com"], reply: 250, user: "hookgate" })
      expect(message!.raw).toContain("lemonsqueezy:1001")
      expect(message!.messageId).toMatch(/^<hookgate\.[0-9a-f]{32}@/)

      // Lemon Squeezy's retries of the event (it signs no timestamp: the same bytes), several at once and later.
      const burst = await Promise.all(Array.from({ length: 6 }, () => deliver(gateway.url, signed)))
      expect(burst.map((a) => a.body.status).every((s) => s === "duplicate" || s === "in_progress")).toBe(true)
      expect((await deliver(gateway.url, signed)).body.status).toBe("duplicate")
      // A refund is not an order to email; a request under another secret writes nothing.
      expect((await deliver(gateway.url, await signLemonSqueezy(lemonSqueezyRefundBody("1001")))).body.status).toBe("ignored")
      const forged = await signLemonSqueezy(lemonSqueezyBody("1002"), "not-the-shop's-secret")
      expect(await deliver(gateway.url, forged)).toMatchObject({ status: 401, body: { status: "unauthorized" } })
      expect(await orderOf(gateway.url, "lemonsqueezy:1002")).toBeUndefined()

      expect(smtp.messages).toHaveLength(1)
      const stats = await admin(gateway.url, "/admin/stats", {}, ADMIN_TOKEN)
      expect(stats.body.orders.sent).toBe(1)
      expect(stats.body.duplicatesPrevented).toBeGreaterThanOrEqual(7)
      // Neither the signing secret nor the SMTP password reaches a log line.
      const password = Redacted.value(smtp.mailerOptions.auth!.password)
      expect(gateway.output()).not.toContain(LEMONSQUEEZY_SECRET)
      expect(gateway.output()).not.toContain(password)
      // SIGTERM shuts the gateway down cleanly on SMTP too (the pool is closed with its scope): `stopped`, exit 0.
      expect(await gateway.stop()).toBe(0)
      expect(gateway.stdout()).toContain("stopped")
    } finally {
      await gateway.stop()
      await smtp.close()
    }
  }, 90_000)

  it("a gateway killed with SIGKILL while the SMTP server stalls sends each order once after its restart", async () => {
    const ORDERS = 6
    const smtp = await startSmtpTestServer({ security: "none" })
    const env = {
      ...lemonEnv(tempDir()),
      ...smtpEnv(smtp),
      SMTP_TIMEOUT: "4 seconds",
      HOOKGATE_LEASE: "6 seconds", // must exceed SMTP_TIMEOUT by the lease margin
      HOOKGATE_SWEEP_EVERY: "1 hour" // only the explicit sweep below
    }
    const gateways: Array<GatewayProcess> = []
    try {
      const first = await startGateway(env)
      gateways.push(first)
      const bodies = Array.from({ length: ORDERS }, (_, i) => lemonSqueezyBody(String(2000 + i)))
      const orders = await Promise.all(bodies.map((body) => signLemonSqueezy(body)))
      // The server takes the connection, then never answers MAIL FROM: every send hangs.
      smtp.failNext(ORDERS, { _tag: "Stall", stage: "MAIL FROM" })
      const inFlight = orders.map((signed) => deliver(first.url, signed).catch(() => ({ status: 0, body: {} })))
      const keys = orders.map((o) => o.orderKey)
      await waitFor(() => allLeased(first.url, keys), (leased) => leased, "every order stored and leased")
      await sleep(500) // the sends on their way to the server, held there
      const killedAt = Date.now()
      await first.stop("SIGKILL")
      await Promise.all(inFlight) // unanswered: Lemon Squeezy retries them
      expect(smtp.messages).toHaveLength(0)
      smtp.reset() // forget the stalls no send of the dead process reached

      const second = await startGateway(env)
      gateways.push(second)
      // Lemon Squeezy's retry while the dead process's lease still holds: stored, in progress, nothing sent twice.
      const early = await deliver(second.url, orders[0]!)
      expect(["in_progress", "sent"]).toContain(early.body.status)
      await sleep(Math.max(0, killedAt + 6_500 - Date.now()))
      const report = await admin(second.url, "/admin/sweep", { method: "POST" }, ADMIN_TOKEN)
      expect(report.status).toBe(200)
      // On a slow machine the restart's own first sweep may already hold some (leases expired by then): wait for it.
      await waitFor(() => Promise.all(keys.map((key) => orderOf(second.url, key))), (all) => all.every((o) => o?.status === "sent"), "every order sent")
      // SMTP honours no idempotency key: the dead process may have sent, so each resend is flagged.
      for (const key of keys) expect(await orderOf(second.url, key)).toMatchObject({ uncertain: true, possibleDuplicates: 1 })
      for (const signed of orders) {
        expect((await deliver(second.url, signed)).body.status).toBe("duplicate")
      }
      // One message per order, each accepted once, under the order's own Message-ID.
      const accepted = smtp.messages.filter((m) => m.reply === 250)
      expect(accepted).toHaveLength(ORDERS)
      expect(new Set(accepted.map((m) => m.to[0])).size).toBe(ORDERS)
      expect(new Set(accepted.map((m) => m.messageId)).size).toBe(ORDERS)
      expect(smtp.messages).toHaveLength(ORDERS)
    } finally {
      await Promise.all(gateways.map((gateway) => gateway.stop("SIGKILL")))
      await smtp.close()
    }
  }, 120_000)
})
