import { describe, expect, it } from "@effect/vitest"
import { Fulfilment, newLeasedOrder, NewOrder, Renderer } from "@hookgate/core"
import { orderIdempotencyKey } from "@hookgate/core/mail"
import { type AcceptedEmail, startResendTestServer } from "@hookgate/mailer-resend/testing"
import { layerDefaultRenderer } from "@hookgate/node"
import { stripeSignatureHeader } from "@hookgate/provider-stripe/testing"
import Database from "better-sqlite3"
import { Effect } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { baselineServer } from "../suites/http-baseline-server.js"
import { signedStripeWebhook } from "../suites/http-load.js"

// The HTTP suite's baseline must do the gateway's work, or its figure compares nothing.

const SECRET = "whsec_bench_test"
const FROM = "hookgate bench <orders@bench.hookgate.localhost>"

type Post = (body: string, signature: string) => Promise<{ readonly status: number; readonly body: unknown }>

/** A Resend stand-in and the baseline server on free ports, for the length of `test`. */
const withBaseline = async (test: (post: Post, db: string, emails: () => ReadonlyArray<AcceptedEmail>) => Promise<void>) => {
  const resend = await startResendTestServer()
  const dir = mkdtempSync(join(tmpdir(), "hookgate-http-baseline-"))
  const db = join(dir, "baseline.db")
  const server = baselineServer({ filename: db, stripeSecret: SECRET, resendUrl: resend.url, resendApiKey: resend.apiKey, from: FROM })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/stripe`
  const post: Post = async (body, signature) => {
    const response = await fetch(url, { method: "POST", body, headers: { "content-type": "application/json", "stripe-signature": signature } })
    return { status: response.status, body: await response.json() }
  }
  try {
    await test(post, db, () => resend.emails)
  } finally {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
    await resend.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

const statusOf = (db: string, key: string) => {
  const reader = new Database(db, { readonly: true })
  try {
    return reader.prepare<[string], { status: string }>("SELECT status FROM hookgate_orders WHERE order_key = ?").get(key)?.status
  } finally {
    reader.close()
  }
}

describe("the HTTP bench's baseline server", () => {
  it("signs webhooks exactly as provider-stripe's own test signer does", async () => {
    const webhook = signedStripeWebhook(SECRET, "t", 1)
    const timestamp = Number(/^t=(\d+),/.exec(webhook.signature)![1])
    const theirs = await Effect.runPromise(stripeSignatureHeader(SECRET, webhook.body, { timestamp }))
    expect(webhook.signature).toBe(theirs)
  })

  it("stores the order as sent and mails the gateway's default receipt once, under the order's key", () =>
    withBaseline(async (post, db, emails) => {
      const webhook = signedStripeWebhook(SECRET, "t", 7)
      expect(await post(webhook.body, webhook.signature)).toEqual({ status: 200, body: { status: "sent", orderId: webhook.key } })
      expect(statusOf(db, webhook.key)).toBe("sent")
      expect(await post(webhook.body, webhook.signature)).toEqual({ status: 200, body: { status: "duplicate", orderId: webhook.key } })

      const order = newLeasedOrder(new NewOrder({
        provider: "stripe",
        eventId: "evt_t7",
        eventType: "checkout.session.completed",
        payloadHash: "h",
        fulfilment: new Fulfilment({
          orderKey: webhook.key,
          email: "buyer7@example.com",
          product: "course-101",
          amount: 1900,
          currency: "usd",
          metadata: { product_id: "course-101" }
        })
      }), { token: "t", now: 0, until: 1 })
      const expected = await Effect.runPromise(Effect.flatMap(Renderer, (r) => r.render(order)).pipe(Effect.provide(layerDefaultRenderer(FROM))))
      expect(emails().map(({ from, idempotencyKey, subject, text, to }) => ({ from, idempotencyKey, subject, text, to }))).toEqual([{
        from: expected.from,
        to: [expected.to],
        subject: expected.subject,
        text: expected.text,
        idempotencyKey: await Effect.runPromise(orderIdempotencyKey(webhook.key))
      }])
    }))

  it("refuses a body signed with another secret: 400, nothing stored, nothing mailed", () =>
    withBaseline(async (post, db, emails) => {
      const forged = signedStripeWebhook("whsec_someone_else", "t", 8)
      expect((await post(forged.body, forged.signature)).status).toBe(400)
      expect(statusOf(db, forged.key)).toBeUndefined()
      expect(emails()).toEqual([])
    }))
})
