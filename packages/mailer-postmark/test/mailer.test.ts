import { FetchHttpClient } from "@effect/platform"
import { Mailer, orderIdempotencyKey } from "@hookgate/core/mail"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Redacted, Tracer } from "effect"
import * as net from "node:net"
import { IDEMPOTENCY_HEADER, layerConfig, MAX_BATCH_SIZE } from "../src/Postmark.js"
import { type PostmarkTestServerShape, startPostmarkTestServer } from "../src/testing/index.js"
import { email, failure, mailerFor, sendError } from "./support.js"

let server: PostmarkTestServerShape
beforeAll(async () => {
  server = await startPostmarkTestServer({ senderDomains: ["example.com"], inactiveRecipients: ["bounced@example.com"] })
})
afterAll(() => server.close())
beforeEach(() => server.reset())

// A key that fits is derived without a digest: synchronously.
const KEY = Effect.runSync(orderIdempotencyKey("test:o1"))

describe("Postmark mailer over real HTTP", () => {
  it.live("POST /email with the server token; answers Postmark's MessageID", () =>
    Effect.gen(function*() {
      const mailer = yield* mailerFor(server, { messageStream: "outbound" })
      expect(mailer.honoursIdempotencyKeys).toBe(false)
      expect(mailer.idempotencyKeyWindow).toBeUndefined()
      const receipt = yield* mailer.send(
        email({ html: "<p>Thank you.</p>", replyTo: "help@example.com", headers: { "X-Order": "o1" } }),
        { idempotencyKey: KEY }
      )
      const [accepted] = server.emails
      expect(receipt).toMatchObject({ mailer: "postmark", messageId: accepted!.id })
      expect(accepted).toMatchObject({
        from: "Shop <shop@example.com>",
        to: "buyer@example.com",
        subject: "Your order",
        textBody: "Thank you.",
        htmlBody: "<p>Thank you.</p>",
        replyTo: "help@example.com",
        headers: [{ Name: "X-Order", Value: "o1" }, { Name: IDEMPOTENCY_HEADER, Value: KEY }],
        messageStream: "outbound",
        endpoint: "/email"
      })
      expect(server.requests[0]).toMatchObject({ status: 200, errorCodes: [0] })
      expect(server.requests[0]!.userAgent).toMatch(/^hookgate-mailer-postmark\//)
    }))

  it.live("no idempotency: the same key twice is two emails", () =>
    Effect.gen(function*() {
      const mailer = yield* mailerFor(server)
      const first = yield* mailer.send(email(), { idempotencyKey: KEY })
      const second = yield* mailer.send(email(), { idempotencyKey: KEY })
      expect(second.messageId).not.toBe(first.messageId)
      expect(server.emails).toHaveLength(2)
    }))

  it.live("a wrong server token: 401 ErrorCode 10 is Misconfigured; the token is in no error", () =>
    Effect.gen(function*() {
      const mailer = yield* mailerFor(server, { serverToken: Redacted.make("not-the-token-4711") })
      const error = yield* sendError(mailer, email(), KEY)
      expect(error).toMatchObject({ _tag: "Misconfigured", code: "postmark_10" })
      expect(error.message).toContain("401 ErrorCode 10")
      expect(JSON.stringify(error) + error.message).not.toContain("not-the-token-4711")
      expect(server.emails).toEqual([])
    }))

  it.live("a From without a sender signature (ErrorCode 400) is Misconfigured: every order has that sender", () =>
    Effect.gen(function*() {
      const mailer = yield* mailerFor(server)
      const error = yield* sendError(mailer, email({ from: "Shop <shop@unverified.example>" }), KEY)
      expect(error).toMatchObject({ _tag: "Misconfigured", code: "postmark_400" })
    }))

  it.live("an invalid email request (300) and an inactive recipient (406) are Rejected", () =>
    Effect.gen(function*() {
      const mailer = yield* mailerFor(server)
      const invalid = yield* sendError(mailer, email({ to: "not-an-address" }), KEY)
      expect(invalid).toMatchObject({ _tag: "Rejected", code: "postmark_300" })
      expect(invalid.detail).toContain("Invalid 'To' address")
      const inactive = yield* sendError(mailer, email({ to: "bounced@example.com" }), KEY)
      expect(inactive).toMatchObject({ _tag: "Rejected", code: "postmark_406" })
      expect(inactive.detail).toContain("bounced@example.com")
      expect(server.emails).toEqual([])
    }))

  it.live("429 (ErrorCode 429), 500 and 503 are Transient", () =>
    Effect.gen(function*() {
      const mailer = yield* mailerFor(server)
      server.failNext(1, { status: 429, errorCode: 429, message: "Rate limit exceeded." })
      server.failNext(1, { status: 500, errorCode: 0, message: "Internal server error." })
      server.failNext(1, { status: 503, errorCode: 0, message: "Service unavailable." })
      for (const status of [429, 500, 503]) {
        const error = yield* sendError(mailer, email(), KEY)
        expect(error._tag).toBe("Transient")
        expect(error.detail).toContain(String(status))
      }
      yield* mailer.send(email(), { idempotencyKey: KEY })
      expect(server.emails).toHaveLength(1)
    }))

  it.live("a wrong base URL (404) is Misconfigured", () =>
    Effect.gen(function*() {
      const mailer = yield* mailerFor(server, { baseUrl: `${server.url}/v2` })
      expect(yield* sendError(mailer, email(), KEY)).toMatchObject({ _tag: "Misconfigured", code: "http_404" })
    }))

  it.live("accepted, then the connection dropped: Unknown (the email went out)", () =>
    Effect.gen(function*() {
      const mailer = yield* mailerFor(server)
      server.acceptThenDrop()
      const error = yield* sendError(mailer, email(), KEY)
      expect(error._tag).toBe("Unknown")
      expect(server.emails).toHaveLength(1)
    }))

  it.live("the server token reaches no span: the HTTP client's header attribute is redacted", () =>
    Effect.gen(function*() {
      const native = yield* Effect.tracer
      const spans: Array<Tracer.Span> = []
      const recording = Tracer.make({
        span: (...args) => {
          const span = native.span(...args)
          spans.push(span)
          return span
        },
        context: (f, fiber) => native.context(f, fiber)
      })
      const mailer = yield* mailerFor(server)
      yield* mailer.send(email(), { idempotencyKey: KEY }).pipe(Effect.withTracer(recording))
      const attributes = spans.flatMap((span) => [...span.attributes.entries()])
      expect(attributes.length).toBeGreaterThan(0)
      expect(attributes.find(([name]) => name === "http.request.header.x-postmark-server-token")?.[1]).toBe("<redacted>")
      expect(JSON.stringify(attributes.map(([name, value]) => [name, String(value)]))).not.toContain(server.serverToken)
    }))

  it.live("the connection dropped after the request was written: Unknown", () =>
    Effect.gen(function*() {
      const mailer = yield* mailerFor(server)
      server.dropNext()
      const error = yield* sendError(mailer, email(), KEY)
      expect(error._tag).toBe("Unknown")
      expect(error.detail).toContain("may have reached Postmark")
      expect(server.emails).toEqual([])
    }))

  it.live("no answer within the timeout after the request was written: Unknown", () =>
    Effect.gen(function*() {
      const mailer = yield* mailerFor(server, { timeout: "200 millis" })
      server.delayNext(1, 1_000)
      const error = yield* sendError(mailer, email(), KEY)
      expect(error).toMatchObject({ _tag: "Unknown" })
      expect(error.detail).toContain("no answer from Postmark within")
      expect(server.requests).toHaveLength(0) // still being handled: it was written
    }))

  it.live("nobody listening: Transient (nothing was written)", () =>
    Effect.gen(function*() {
      const port = yield* Effect.promise(() =>
        new Promise<number>((resolve) => {
          const probe = net.createServer().listen(0, "127.0.0.1", () => {
            const { port } = probe.address() as net.AddressInfo
            probe.close(() => resolve(port))
          })
        })
      )
      const mailer = yield* mailerFor(server, { baseUrl: `http://127.0.0.1:${port}` })
      const error = yield* sendError(mailer, email(), KEY)
      expect(error._tag).toBe("Transient")
      expect(error.detail).toContain("ECONNREFUSED")
    }))

  it.live("a batch: POST /email/batch, one receipt per email, in order", () =>
    Effect.gen(function*() {
      const mailer = yield* mailerFor(server)
      const emails = [1, 2, 3].map((i) => email({ to: `r${i}@example.com` }))
      const receipts = yield* mailer.sendBatch!(emails, { idempotencyKey: "hookgate/campaign/c1/batch/1" })
      expect(server.requests.map((r) => [r.path, r.status])).toEqual([["/email/batch", 200]])
      expect(server.emails.map((e) => [e.to, e.endpoint])).toEqual([1, 2, 3].map((i) => [`r${i}@example.com`, "/email/batch"]))
      expect(receipts.map((r) => r.messageId)).toEqual(server.emails.map((e) => e.id))
    }))

  it.live("a batch accepted in part: Rejected, with the receipts of those that went out", () =>
    Effect.gen(function*() {
      const mailer = yield* mailerFor(server)
      const emails = [email({ to: "r1@example.com" }), email({ to: "bounced@example.com" }), email({ to: "r3@example.com" })]
      const error = yield* failure(mailer.sendBatch!(emails, { idempotencyKey: "hookgate/campaign/c1/batch/1" }))
      if (error._tag !== "Rejected") throw new Error(`expected Rejected, got ${error._tag}`)
      expect(error.code).toBe("postmark_406")
      expect(error.accepted?.map((r) => r?.messageId)).toEqual([server.emails[0]!.id, undefined, server.emails[1]!.id])
      expect(server.requests[0]!.errorCodes).toEqual([0, 406, 0])
    }))

  it.live("a batch refused whole: the batch's error, nothing accepted; over 500 refused before any request", () =>
    Effect.gen(function*() {
      const mailer = yield* mailerFor(server)
      const all = yield* failure(mailer.sendBatch!([email({ to: "bounced@example.com" }), email({ to: "x" })], { idempotencyKey: "k" }))
      expect(all).toMatchObject({ _tag: "Rejected", code: "postmark_406" })
      expect((all as { accepted?: unknown }).accepted).toBeUndefined()
      const tooMany = Array.from({ length: MAX_BATCH_SIZE + 1 }, (_, i) => email({ to: `r${i}@example.com` }))
      expect(yield* failure(mailer.sendBatch!(tooMany, { idempotencyKey: "k" }))).toMatchObject({ _tag: "Rejected", code: "batch_too_large" })
      expect(server.requests).toHaveLength(1)
    }))

  it.live("layerConfig reads POSTMARK_SERVER_TOKEN, POSTMARK_BASE_URL, POSTMARK_MESSAGE_STREAM, POSTMARK_TIMEOUT", () =>
    Effect.gen(function*() {
      const mailer = yield* Mailer
      yield* mailer.send(email({ to: "configured@example.com" }), { idempotencyKey: KEY })
      // This test's own email: a request of an earlier test may still land after the reset on a loaded machine.
      expect(server.emails.filter((e) => e.to === "configured@example.com").map((e) => e.messageStream)).toEqual(["broadcast"])
    }).pipe(Effect.provide(
      layerConfig().pipe(
        Layer.provide(FetchHttpClient.layer),
        Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([
          ["POSTMARK_SERVER_TOKEN", server.serverToken],
          ["POSTMARK_BASE_URL", server.url],
          ["POSTMARK_MESSAGE_STREAM", "broadcast"],
          ["POSTMARK_TIMEOUT", "3 seconds"]
        ]))))
      )
    )))
})
