import { describe, expect, it } from "@effect/vitest"
import { Fulfilment, newLeasedOrder, NewOrder, Renderer } from "@hookgate/core"
import { orderIdempotencyKey } from "@hookgate/core/mail"
import { type AcceptedEmail, startResendTestServer } from "@hookgate/mailer-resend/testing"
import { Gateway } from "@hookgate/node"
import { stripeSignatureHeader } from "@hookgate/provider-stripe/testing"
import Database from "better-sqlite3"
import { Effect, ManagedRuntime } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { baselineServer, type BaselineServerOptions } from "../suites/http-baseline-server.js"
import { effectFloorServer } from "../suites/http-effect-floor-server.js"
import { signedStripeWebhook } from "../suites/http-load.js"

// The HTTP suite's baseline and Effect floor must do the gateway's work, or their figures compare nothing.

const SECRET = "whsec_bench_test"
const FROM = "hookgate bench <orders@bench.hookgate.localhost>"

type Post = (body: string, signature: string) => Promise<{ readonly status: number; readonly body: unknown }>

/** A server listening on a free loopback port: its base URL, and how to stop it. */
type Start = (options: BaselineServerOptions) => Promise<{ readonly url: string; readonly close: () => Promise<unknown> }>

const servers: ReadonlyArray<readonly [string, Start]> = [
  ["node:http baseline", async (options) => {
    const server = baselineServer(options)
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      close: () => {
        server.closeAllConnections()
        return new Promise((resolve) => server.close(resolve))
      }
    }
  }],
  ["@effect/platform floor", async (options) => {
    let url = ""
    const runtime = ManagedRuntime.make(effectFloorServer(options, (listening) => (url = listening)))
    await runtime.runtime()
    return { url, close: () => runtime.dispose() }
  }]
]

/** A Resend stand-in and the server `start` starts, on free ports, for the length of `test`. */
const withServer = async (start: Start, test: (post: Post, db: string, emails: () => ReadonlyArray<AcceptedEmail>) => Promise<void>) => {
  const resend = await startResendTestServer()
  const dir = mkdtempSync(join(tmpdir(), "hookgate-http-baseline-"))
  const db = join(dir, "baseline.db")
  const server = await start({ filename: db, stripeSecret: SECRET, resendUrl: resend.url, resendApiKey: resend.apiKey, from: FROM })
  const url = `${server.url}/webhooks/stripe`
  const post: Post = async (body, signature) => {
    const response = await fetch(url, { method: "POST", body, headers: { "content-type": "application/json", "stripe-signature": signature } })
    return { status: response.status, body: await response.json() }
  }
  try {
    await test(post, db, () => resend.emails)
  } finally {
    await server.close()
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

describe("the HTTP bench's load", () => {
  it("signs webhooks exactly as provider-stripe's own test signer does", async () => {
    const webhook = signedStripeWebhook(SECRET, "t", 1)
    const timestamp = Number(/^t=(\d+),/.exec(webhook.signature)![1])
    const theirs = await Effect.runPromise(stripeSignatureHeader(SECRET, webhook.body, { timestamp }))
    expect(webhook.signature).toBe(theirs)
  })
})

describe.each(servers)("the HTTP bench's %s server", (_, start) => {
  const withBaseline = (test: Parameters<typeof withServer>[1]) => withServer(start, test)

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
      const expected = await Effect.runPromise(Effect.flatMap(Renderer, (r) => r.render(order)).pipe(Effect.provide(Gateway.layerDefaultRenderer(FROM))))
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
