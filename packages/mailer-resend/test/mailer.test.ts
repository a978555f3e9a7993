import { FetchHttpClient } from "@effect/platform"
import { Mailer, orderIdempotencyKey } from "@hookgate/core/mail"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@effect/vitest"
import { Cause, ConfigProvider, Duration, Effect, Exit, Fiber, Layer, Redacted } from "effect"
import * as net from "node:net"
import { layerConfig, make, MAX_BATCH_SIZE } from "../src/Resend.js"
import { type ResendTestServerShape, startResendTestServer } from "../src/testing/index.js"
import { email, mailerFor, sendError } from "./support.js"

let server: ResendTestServerShape
beforeAll(async () => {
  server = await startResendTestServer()
})
afterAll(() => server.close())
beforeEach(() => server.reset())

const KEY = "hookgate/order/test:o1"

describe("Resend mailer over real HTTP", () => {
  it.live("sends with a bearer key, a User-Agent and the idempotency key, and answers Resend's id", () =>
    Effect.gen(function*() {
      const mailer = yield* mailerFor(server)
      expect(mailer.honoursIdempotencyKeys).toBe(true)
      const receipt = yield* mailer.send(
        email({ html: "<p>Thank you.</p>", replyTo: "help@example.com", headers: { "X-Order": "o1" } }),
        { idempotencyKey: KEY }
      )
      const [accepted] = server.emails
      expect(receipt).toMatchObject({ mailer: "resend", messageId: accepted!.id })
      expect(accepted).toMatchObject({
        from: "Shop <shop@example.com>",
        to: ["buyer@example.com"],
        subject: "Your order",
        text: "Thank you.",
        html: "<p>Thank you.</p>",
        replyTo: ["help@example.com"],
        headers: { "X-Order": "o1" },
        idempotencyKey: KEY,
        endpoint: "/emails"
      })
      expect(server.requests[0]!.userAgent).toMatch(/^hookgate-mailer-resend\//)
    }))

  it.live("the same key and email twice: the first answer again, one email", () =>
    Effect.gen(function*() {
      const mailer = yield* mailerFor(server)
      const first = yield* mailer.send(email(), { idempotencyKey: KEY })
      const second = yield* mailer.send(email(), { idempotencyKey: KEY })
      expect(second.messageId).toBe(first.messageId)
      expect(server.emails).toHaveLength(1)
      expect(server.requests.map((r) => r.replayed)).toEqual([false, true])
    }))

  it.live("the same key with another email is Rejected, with Resend's message", () =>
    Effect.gen(function*() {
      const mailer = yield* mailerFor(server)
      yield* mailer.send(email(), { idempotencyKey: KEY })
      const error = yield* sendError(mailer, email({ subject: "Changed" }), KEY)
      expect(error).toMatchObject({ _tag: "Rejected", code: "invalid_idempotent_request" })
      expect(error.detail).toContain("different request payload")
      expect(server.emails).toHaveLength(1)
    }))

  it.live("the same key while the first request is in flight is Transient, and the first still lands", () =>
    Effect.gen(function*() {
      const mailer = yield* mailerFor(server)
      server.delayNext(1, 300)
      const first = yield* Effect.fork(mailer.send(email(), { idempotencyKey: KEY }))
      yield* Effect.sleep("100 millis")
      const error = yield* sendError(mailer, email(), KEY)
      expect(error).toMatchObject({ _tag: "Transient", retryAfter: Duration.seconds(1) })
      expect(error.detail).toContain("concurrent_idempotent_requests")
      const receipt = yield* Fiber.join(first)
      expect(server.emails.map((e) => e.id)).toEqual([receipt.messageId])
    }))

  it.live("accepted, then the connection dropped: Unknown; the retry with the same key sends nothing new", () =>
    Effect.gen(function*() {
      const mailer = yield* mailerFor(server)
      server.acceptThenDrop()
      const error = yield* sendError(mailer, email(), KEY)
      expect(error._tag).toBe("Unknown")
      expect(server.emails).toHaveLength(1)
      const receipt = yield* mailer.send(email(), { idempotencyKey: KEY })
      expect(receipt.messageId).toBe(server.emails[0]!.id)
      expect(server.emails).toHaveLength(1)
    }))

  it.live("dropped before acceptance: Unknown too (the client cannot tell), and the retry sends once", () =>
    Effect.gen(function*() {
      const mailer = yield* mailerFor(server)
      server.dropNext()
      expect((yield* sendError(mailer, email(), KEY))._tag).toBe("Unknown")
      expect(server.emails).toHaveLength(0)
      yield* mailer.send(email(), { idempotencyKey: KEY })
      expect(server.emails).toHaveLength(1)
    }))

  it.live("no answer within the timeout: Unknown, while the server may still accept it", () =>
    Effect.gen(function*() {
      const mailer = yield* mailerFor(server, { timeout: "100 millis" })
      server.delayNext(1, 400)
      const error = yield* sendError(mailer, email(), KEY)
      expect(error).toMatchObject({ _tag: "Unknown" })
      expect(error.detail).toContain("within 100ms")
      // The server finishes the request the client gave up on: the email went out after all.
      while (server.emails.length === 0) yield* Effect.sleep("20 millis")
      expect(server.emails).toHaveLength(1)
    }))

  it.live("a refused connection (nothing written) is Transient", () =>
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
      expect(error).toMatchObject({ _tag: "Transient" })
      expect(error.detail).toContain("ECONNREFUSED")
    }))

  const scripted = [
    { status: 429, name: "rate_limit_exceeded", retryAfterSeconds: 2, expected: { _tag: "Transient", retryAfter: Duration.seconds(2) } },
    { status: 429, name: "daily_quota_exceeded", expected: { _tag: "Transient", alert: true, retryAfter: Duration.hours(1) } },
    { status: 429, name: "monthly_quota_exceeded", retryAfterSeconds: 7200, expected: { _tag: "Transient", alert: true, retryAfter: Duration.hours(2) } },
    { status: 500, name: "internal_server_error", expected: { _tag: "Transient" } },
    { status: 503, name: "application_error", retryAfterSeconds: 3, expected: { _tag: "Transient", retryAfter: Duration.seconds(3) } },
    { status: 409, name: "invalid_idempotent_request", expected: { _tag: "Rejected", code: "invalid_idempotent_request", keyAlreadyUsed: true } },
    { status: 422, name: "invalid_parameter", expected: { _tag: "Rejected", code: "invalid_parameter" } },
    { status: 400, name: "validation_error", expected: { _tag: "Rejected", code: "validation_error" } },
    { status: 401, name: "restricted_api_key", expected: { _tag: "Misconfigured", code: "restricted_api_key" } },
    { status: 401, name: "missing_api_key", expected: { _tag: "Misconfigured", code: "missing_api_key" } },
    { status: 403, name: "invalid_api_key", expected: { _tag: "Misconfigured", code: "invalid_api_key" } },
    { status: 403, name: "validation_error", expected: { _tag: "Misconfigured", code: "validation_error" } },
    { status: 404, name: "not_found", expected: { _tag: "Misconfigured", code: "not_found" } }
  ] as const
  for (const { expected, ...reply } of scripted) {
    it.live(`${reply.status} ${reply.name} is ${expected._tag}`, () =>
      Effect.gen(function*() {
        const mailer = yield* mailerFor(server)
        server.failNext(1, { ...reply, message: `scripted ${reply.name}` })
        const error = yield* sendError(mailer, email(), KEY)
        expect(error).toMatchObject(expected)
        expect(error.detail).toBe(`${reply.status} ${reply.name}: scripted ${reply.name}`)
        if (expected._tag === "Transient" && !("alert" in expected)) expect(error).not.toHaveProperty("alert", true)
      }))
  }

  it.live("an invalid sender address is Rejected with Resend's message", () =>
    Effect.gen(function*() {
      const mailer = yield* mailerFor(server)
      const error = yield* sendError(mailer, email({ from: "shop-at-example.com" }), KEY)
      expect(error).toMatchObject({ _tag: "Rejected", code: "invalid_from_address" })
      expect(error.detail).toContain("Invalid `from` field")
      expect(server.emails).toHaveLength(0)
    }))

  it.live("the rate limit answers Transient with the server's retry-after", () =>
    Effect.gen(function*() {
      const limited = yield* Effect.acquireRelease(
        Effect.promise(() => startResendTestServer({ rateLimit: { requests: 1, windowMillis: 1000 } })),
        (s) => Effect.promise(() => s.close())
      )
      const mailer = yield* mailerFor(limited)
      yield* mailer.send(email(), { idempotencyKey: "k1" })
      const error = yield* sendError(mailer, email(), "k2")
      expect(error).toMatchObject({ _tag: "Transient", retryAfter: Duration.seconds(1) })
      expect(error.detail).toContain("rate_limit_exceeded")
    }).pipe(Effect.scoped))

  it.live("a wrong API key is Misconfigured, and the key never appears in the error", () =>
    Effect.gen(function*() {
      const secret = "re_wrong_but_secret_123"
      const mailer = yield* mailerFor(server, { apiKey: Redacted.make(secret) })
      const exit = yield* Effect.exit(mailer.send(email(), { idempotencyKey: KEY }))
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit)) {
        const error = Cause.squash(exit.cause) as { _tag: string; code?: string }
        expect(error).toMatchObject({ _tag: "Misconfigured", code: "invalid_api_key" })
        for (const text of [Cause.pretty(exit.cause), JSON.stringify(error), String(error)]) {
          expect(text).not.toContain(secret)
        }
      }
      // Nor does a transport failure carry it.
      const unreachable = yield* mailerFor(server, { apiKey: Redacted.make(secret), baseUrl: "http://127.0.0.1:9" })
      const failed = yield* Effect.exit(unreachable.send(email(), { idempotencyKey: KEY }))
      if (Exit.isFailure(failed)) expect(Cause.pretty(failed.cause)).not.toContain(secret)
    }))

  it.live("the key travels as the core fitted it: a very long order key's hashed key, stably, not fitted again", () =>
    Effect.gen(function*() {
      const mailer = yield* mailerFor(server)
      const key = yield* orderIdempotencyKey("k".repeat(300))
      const first = yield* mailer.send(email(), { idempotencyKey: key })
      const second = yield* mailer.send(email(), { idempotencyKey: key })
      expect(second.messageId).toBe(first.messageId)
      const sent = server.requests.map((r) => r.idempotencyKey)
      expect(sent[0]).toBe(key)
      expect(sent[0]).toMatch(/^hookgate\/order\/sha256-[0-9a-f]{64}$/)
      expect(sent[1]).toBe(sent[0])
    }))

  it.live("an order id with CR/LF, NUL or characters above U+00FF still makes a valid header, answered once", () =>
    Effect.gen(function*() {
      const mailer = yield* mailerFor(server)
      for (const orderKey of ["test:o1\r\nX-Injected: yes", "test:o\u00002", "test:\u20ac\u{1F600}"]) {
        const key = yield* orderIdempotencyKey(orderKey)
        const first = yield* mailer.send(email(), { idempotencyKey: key })
        const second = yield* mailer.send(email(), { idempotencyKey: key })
        expect(second.messageId).toBe(first.messageId)
      }
      expect(server.emails).toHaveLength(3)
      expect(server.requests.every((r) => r.idempotencyKey !== undefined && /^[\x20-\x7e]+$/.test(r.idempotencyKey))).toBe(true)
    }))

  it.live("a batch answers one receipt per email, in order, under one key", () =>
    Effect.gen(function*() {
      const mailer = yield* mailerFor(server)
      const emails = ["a", "b", "c"].map((who) => email({ to: `${who}@example.com` }))
      const receipts = yield* mailer.sendBatch!(emails, { idempotencyKey: "hookgate/batch/1" })
      expect(receipts.map((r) => r.messageId)).toEqual(server.emails.map((e) => e.id))
      expect(server.emails.map((e) => [e.to[0], e.endpoint])).toEqual([
        ["a@example.com", "/emails/batch"],
        ["b@example.com", "/emails/batch"],
        ["c@example.com", "/emails/batch"]
      ])
      const again = yield* mailer.sendBatch!(emails, { idempotencyKey: "hookgate/batch/1" })
      expect(again.map((r) => r.messageId)).toEqual(receipts.map((r) => r.messageId))
      expect(server.emails).toHaveLength(3)
      expect(yield* mailer.sendBatch!([], { idempotencyKey: "hookgate/batch/2" })).toEqual([])
    }))

  it.live("a batch over 100 is Rejected before any request", () =>
    Effect.gen(function*() {
      const mailer = yield* mailerFor(server)
      const emails = Array.from({ length: MAX_BATCH_SIZE + 1 }, (_, i) => email({ to: `b${i}@example.com` }))
      const result = yield* Effect.either(mailer.sendBatch!(emails, { idempotencyKey: "k" }))
      expect(result).toMatchObject({ _tag: "Left", left: { _tag: "Rejected", code: "batch_too_large" } })
      expect(server.requests).toHaveLength(0)
    }))

  it.live("a 2xx whose body is not Resend's is Unknown (accepted, id lost): the retry is answered by key", () =>
    Effect.gen(function*() {
      const fetchHtml: typeof fetch = async () => new Response("<html>ok</html>", { status: 200 })
      const mailer = yield* make({ apiKey: Redacted.make("re_x") }).pipe(
        Effect.provide(FetchHttpClient.layer),
        Effect.provideService(FetchHttpClient.Fetch, fetchHtml)
      )
      const result = yield* Effect.either(mailer.send(email(), { idempotencyKey: KEY }))
      expect(result).toMatchObject({ _tag: "Left", left: { _tag: "Unknown" } })
    }))

  it.live("layerConfig reads RESEND_API_KEY, RESEND_BASE_URL and RESEND_TIMEOUT", () =>
    Effect.gen(function*() {
      const config = ConfigProvider.fromMap(
        new Map([["RESEND_API_KEY", server.apiKey], ["RESEND_BASE_URL", server.url], ["RESEND_TIMEOUT", "2 seconds"]])
      )
      const live = layerConfig().pipe(Layer.provide(FetchHttpClient.layer), Layer.provide(Layer.setConfigProvider(config)))
      const receipt = yield* Effect.flatMap(Mailer, (m) => m.send(email(), { idempotencyKey: KEY })).pipe(
        Effect.provide(live)
      )
      expect(receipt.messageId).toBe(server.emails[0]!.id)
      const missing = Layer.setConfigProvider(ConfigProvider.fromMap(new Map()))
      const exit = yield* Effect.exit(
        Effect.provide(Mailer, layerConfig().pipe(Layer.provide(FetchHttpClient.layer), Layer.provide(missing)))
      )
      expect(Exit.isFailure(exit) && Cause.pretty(exit.cause)).toContain("RESEND_API_KEY")
    }))
})
