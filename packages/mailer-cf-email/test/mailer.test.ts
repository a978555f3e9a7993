import { orderIdempotencyKey, OutgoingEmail } from "@hookgate/core/mail"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Either, Tracer } from "effect"
import PostalMime from "postal-mime"
import {
  type EmailMessageConstructor,
  type EmailSendingMessage,
  make,
  type SendEmailBinding
} from "../src/CloudflareEmail.js"
import { type ParsedMailbox, parseMailbox } from "../src/internal/addresses.js"
import { classifyThrown } from "../src/internal/classify.js"
import { buildMime } from "../src/internal/mime.js"
import { messageIdFor } from "../src/internal/message-id.js"

/** Unit tests in Node with stand-in bindings; the real binding is exercised in Miniflare (binding.test.ts). */

const email = new OutgoingEmail({
  from: "shop@example.com",
  to: "buyer@example.com",
  subject: "Order",
  text: "Thanks"
})
const options = { mailer: "cloudflare-email", quotaRetryAfter: Duration.hours(1) }
const thrown = (code: string | undefined, message = "failed") => Object.assign(new Error(message), code ? { code } : {})

describe("classifyThrown", () => {
  const table: ReadonlyArray<[unknown, Record<string, unknown>]> = [
    [thrown("E_RATE_LIMIT_EXCEEDED"), { _tag: "Transient" }],
    [thrown("E_DAILY_LIMIT_EXCEEDED"), { _tag: "Transient", alert: true, retryAfter: Duration.hours(1) }],
    [thrown("E_SENDER_NOT_VERIFIED"), { _tag: "Misconfigured", code: "E_SENDER_NOT_VERIFIED" }],
    [thrown("E_RECIPIENT_NOT_ALLOWED"), { _tag: "Rejected", code: "E_RECIPIENT_NOT_ALLOWED" }],
    [thrown("E_RECIPIENT_SUPPRESSED"), { _tag: "Rejected", code: "E_RECIPIENT_SUPPRESSED" }],
    [thrown("E_HEADER_NOT_ALLOWED"), { _tag: "Rejected", code: "E_HEADER_NOT_ALLOWED" }],
    [thrown("E_HEADER_USE_API_FIELD"), { _tag: "Rejected", code: "E_HEADER_USE_API_FIELD" }],
    [thrown("E_VALIDATION_ERROR"), { _tag: "Rejected", code: "E_VALIDATION_ERROR" }],
    [thrown("E_CONTENT_TOO_LARGE"), { _tag: "Rejected", code: "E_CONTENT_TOO_LARGE" }],
    [thrown("E_DELIVERY_FAILED"), { _tag: "Unknown" }],
    [thrown("E_INTERNAL_SERVER_ERROR"), { _tag: "Unknown" }],
    [thrown("E_SOMETHING_NEW"), { _tag: "Unknown" }],
    [thrown(undefined, "email to x@example.com not allowed"), { _tag: "Rejected", code: "E_RECIPIENT_NOT_ALLOWED" }],
    [thrown(undefined, "email from x@example.com not allowed"), { _tag: "Misconfigured", code: "E_SENDER_NOT_VERIFIED" }],
    [thrown(undefined, "invalid message-id"), { _tag: "Rejected", code: "E_VALIDATION_ERROR" }],
    [thrown(undefined, "Network connection lost."), { _tag: "Unknown" }],
    ["a string", { _tag: "Unknown", detail: "a string" }]
  ]
  for (const [error, expected] of table) {
    it(`${(error as { code?: string }).code ?? (error as Error).message ?? error} → ${expected._tag}`, () => {
      expect(classifyThrown(error, options)).toMatchObject(expected)
    })
  }
})

describe("the mailer with stand-in bindings", () => {
  const recording = (answer: (message: unknown) => Promise<unknown>) => {
    const calls: Array<unknown> = []
    const binding: SendEmailBinding = {
      send: (message: unknown) => {
        calls.push(message)
        return answer(message)
      }
    }
    return { binding, calls }
  }

  it.effect("declares that it does not honour idempotency keys", () =>
    Effect.map(make({ form: "sending", binding: recording(async () => ({ messageId: "m" })).binding }), (mailer) => {
      expect(mailer.honoursIdempotencyKeys).toBe(false)
    }))

  it.effect("Email Sending: answers the binding's messageId, and sends the key as X-Hookgate-Idempotency-Key", () =>
    Effect.gen(function*() {
      const { binding, calls } = recording(async () => ({ messageId: "cf-123" }))
      const mailer = yield* make({ form: "sending", binding })
      const receipt = yield* mailer.send(email, { idempotencyKey: "hookgate/order/test:o1" })
      expect(receipt).toMatchObject({ mailer: "cloudflare-email", messageId: "cf-123" })
      expect(calls[0] as EmailSendingMessage).toEqual({
        from: "shop@example.com",
        to: "buyer@example.com",
        subject: "Order",
        text: "Thanks",
        headers: { "X-Hookgate-Idempotency-Key": "hookgate/order/test:o1" }
      })
    }))

  it.effect("Email Routing: an EmailMessage with the envelope addresses and buildMime's MIME", () =>
    Effect.gen(function*() {
      const built: Array<{ from: string; to: string; raw: string }> = []
      const EmailMessage: EmailMessageConstructor = class {
        constructor(readonly from: string, readonly to: string, raw: string) {
          built.push({ from, to, raw })
        }
      }
      const { binding } = recording(async () => undefined)
      const mailer = yield* make({ form: "routing", binding, EmailMessage })
      const receipt = yield* mailer.send(
        new OutgoingEmail({ ...email, from: "Shop <shop@example.com>" }),
        { idempotencyKey: "hookgate/order/test:o1" }
      )
      expect(built[0]).toMatchObject({ from: "shop@example.com", to: "buyer@example.com" })
      const parsed = yield* Effect.promise(() => PostalMime.parse(built[0]!.raw))
      // The binding answered nothing: the receipt is our Message-ID, derived from the key.
      expect(receipt.messageId).toBe(parsed.messageId)
      expect(parsed.messageId).toMatch(/^<hookgate\.[0-9a-f]{32}@example\.com>$/)
    }))

  it.effect("an order id with CR/LF, NUL or characters above U+00FF travels as a header-safe key, not a rejected header", () =>
    Effect.gen(function*() {
      const { binding, calls } = recording(async () => ({ messageId: "m" }))
      const mailer = yield* make({ form: "sending", binding })
      for (const orderKey of ["test:o1\r\nBcc: x@evil.example", "test:o\u00002", "test:\u20ac\u{1F600}"]) {
        yield* mailer.send(email, { idempotencyKey: yield* orderIdempotencyKey(orderKey) })
      }
      const sent = calls.map((call) => (call as EmailSendingMessage).headers?.["X-Hookgate-Idempotency-Key"])
      expect(sent).toHaveLength(3)
      expect(sent.every((key) => key !== undefined && /^hookgate\/order\/sha256-[0-9a-f]{64}$/.test(key))).toBe(true)
    }))

  it.effect("the Message-ID is the key's SHA-256, so every retry of one order carries the same one", () =>
    Effect.gen(function*() {
      const key = yield* orderIdempotencyKey("test:o1")
      const digest = new Uint8Array(yield* Effect.promise(() => crypto.subtle.digest("SHA-256", new TextEncoder().encode(key))))
      const hex = Array.from(digest.subarray(0, 16), (b) => b.toString(16).padStart(2, "0")).join("")
      expect(yield* messageIdFor(key, "example.com")).toBe(`<hookgate.${hex}@example.com>`)
    }))

  it.effect("Email Routing outside Workers without EmailMessage is Rejected, with the remedy", () =>
    Effect.gen(function*() {
      const mailer = yield* make({ form: "routing", binding: recording(async () => undefined).binding })
      const result = yield* Effect.either(mailer.send(email, { idempotencyKey: "k" }))
      expect(Either.isLeft(result) && result.left).toMatchObject({ _tag: "Rejected", code: "no_email_message" })
    }))

  it.effect("a thrown quota error is Transient with an alert and a long delay", () =>
    Effect.gen(function*() {
      const { binding } = recording(async () => {
        throw thrown("E_DAILY_LIMIT_EXCEEDED", "daily limit reached")
      })
      const mailer = yield* make({ form: "sending", binding, quotaRetryAfter: "3 hours" })
      const result = yield* Effect.either(mailer.send(email, { idempotencyKey: "k" }))
      expect(Either.isLeft(result) && result.left).toMatchObject({
        _tag: "Transient",
        alert: true,
        retryAfter: Duration.hours(3)
      })
    }))

  it.live("a binding that never answers is Unknown after the timeout", () =>
    Effect.gen(function*() {
      const mailer = yield* make({ form: "sending", binding: recording(() => new Promise(() => {})).binding, timeout: "50 millis" })
      const result = yield* Effect.either(mailer.send(email, { idempotencyKey: "k" }))
      expect(Either.isLeft(result) && result.left).toMatchObject({ _tag: "Unknown" })
    }))

  it.live("Email Routing: a binding that never answers is Unknown after the timeout", () =>
    Effect.gen(function*() {
      const EmailMessage: EmailMessageConstructor = class {
        constructor(readonly from: string, readonly to: string, _raw: string) {}
      }
      const binding = recording(() => new Promise(() => {})).binding
      const mailer = yield* make({ form: "routing", binding, EmailMessage, timeout: "50 millis" })
      const result = yield* Effect.either(mailer.send(email, { idempotencyKey: "k" }))
      expect(Either.isLeft(result) && result.left).toMatchObject({ _tag: "Unknown" })
    }))

  it.effect("Email Routing: a message that cannot be built is Rejected and never reaches the binding", () =>
    Effect.gen(function*() {
      const EmailMessage: EmailMessageConstructor = class {
        constructor(readonly from: string, readonly to: string) {
          throw new Error(`bad envelope ${from} ${to}`)
        }
      }
      const { binding, calls } = recording(async () => undefined)
      const mailer = yield* make({ form: "routing", binding, EmailMessage })
      const result = yield* Effect.either(mailer.send(email, { idempotencyKey: "k" }))
      expect(Either.isLeft(result) && result.left).toMatchObject({ _tag: "Rejected", code: "invalid_email" })
      expect(calls).toHaveLength(0)
    }))

  it.effect("a tracer that exports sees the call as hookgate.cloudflare_email.send, with its form", () =>
    Effect.gen(function*() {
      const seen: Array<{ name: string; form: unknown }> = []
      const base = yield* Effect.tracer
      const tracer = Tracer.make({
        span: (name, ...rest) => {
          const span = base.span(name, ...rest)
          seen.push({ name, form: undefined })
          const attribute = span.attribute.bind(span)
          span.attribute = (key, value) => {
            if (key === "form") seen[seen.length - 1]!.form = value
            attribute(key, value)
          }
          return span
        },
        context: base.context
      })
      const mailer = yield* make({ form: "sending", binding: recording(async () => ({ messageId: "m" })).binding })
      yield* mailer.send(email, { idempotencyKey: "k" }).pipe(Effect.withTracer(tracer))
      expect(seen).toEqual([{ name: "hookgate.cloudflare_email.send", form: "sending" }])
    }))

  it.effect("an address that is not one is Rejected before the binding is called", () =>
    Effect.gen(function*() {
      const { binding, calls } = recording(async () => ({ messageId: "m" }))
      const mailer = yield* make({ form: "sending", binding })
      const result = yield* Effect.either(mailer.send(new OutgoingEmail({ ...email, to: "not an address" }), { idempotencyKey: "k" }))
      expect(Either.isLeft(result) && result.left).toMatchObject({ _tag: "Rejected", code: "invalid_email" })
      expect(calls).toHaveLength(0)
    }))
})

describe("buildMime", () => {
  it("round-trips through postal-mime: UTF-8 subject and bodies, reply-to, headers", async () => {
    const raw = buildMime(
      new OutgoingEmail({
        from: "Ünïcode Shop <shop@example.com>",
        to: "buyer@example.com",
        subject: "Ihre Bestellung – danke ✓",
        text: "Grüße, " + "lang ".repeat(40),
        html: "<p>Grüße</p>",
        replyTo: "help@example.com"
      }),
      { messageId: "<m1@example.com>", headers: { "X-Hookgate-Idempotency-Key": "k1" }, date: Date.UTC(2026, 0, 2, 3, 4, 5) }
    )
    expect(raw.split("\r\n").every((line) => line.length <= 998)).toBe(true)
    const parsed = await PostalMime.parse(raw)
    expect(parsed.from).toEqual({ address: "shop@example.com", name: "Ünïcode Shop" })
    expect(parsed.subject).toBe("Ihre Bestellung – danke ✓")
    expect(parsed.text?.trim()).toBe(("Grüße, " + "lang ".repeat(40)).trim())
    expect(parsed.html?.trim()).toBe("<p>Grüße</p>")
    expect(parsed.messageId).toBe("<m1@example.com>")
    expect(parsed.headers.find((h) => h.key === "x-hookgate-idempotency-key")?.value).toBe("k1")
    expect(parsed.replyTo).toEqual([{ address: "help@example.com", name: "" }])
    expect(parsed.date).toBe("2026-01-02T03:04:05.000Z")
  })

  it("text only is one text/plain part; a long subject is folded into encoded words of at most 75 characters; the same input gives the same bytes", async () => {
    const subject = "Ihre Bestellung ✓ ".repeat(12).trim()
    const input = new OutgoingEmail({ from: "shop@example.com", to: "\"Ada B.\" <buyer@example.com>", subject, text: "Danke" })
    const extra = { messageId: "<m2@example.com>", headers: {}, date: 0 }
    const raw = buildMime(input, extra)
    expect(raw).toBe(buildMime(input, extra))
    expect(raw).not.toContain("multipart")
    expect(raw.match(/=\?utf-8\?B\?[^?]*\?=/g)?.every((word) => word.length <= 75)).toBe(true)
    const parsed = await PostalMime.parse(raw)
    expect(parsed.subject).toBe(subject)
    expect(parsed.to).toEqual([{ address: "buyer@example.com", name: "Ada B." }])
    expect(parsed.text?.trim()).toBe("Danke")
    expect(parsed.html).toBeUndefined()
  })

  it("refuses an address that is not one", () => {
    expect(() => buildMime(new OutgoingEmail({ ...email, to: "nobody" }), { messageId: "<m@x>", headers: {} })).toThrow(
      "to is not an email address: nobody"
    )
  })
})

describe("parseMailbox", () => {
  const table: ReadonlyArray<[string, ParsedMailbox | undefined]> = [
    ["a@b.c", { address: "a@b.c", name: "" }],
    ["  a@b.c ", { address: "a@b.c", name: "" }],
    ["<a@b.c>", { address: "a@b.c", name: "" }],
    ["Shop <a@b.c>", { address: "a@b.c", name: "Shop" }],
    ["\"Shop, Inc.\" <a@b.c>", { address: "a@b.c", name: "Shop, Inc." }],
    ["'Shop' <a@b.c>", { address: "a@b.c", name: "Shop" }],
    ["not an address", undefined],
    ["Shop <not an address>", undefined],
    ["Shop <a@b.c", undefined],
    ["a@b.c, d@e.f", undefined],
    ["", undefined]
  ]
  for (const [text, expected] of table) {
    it(`${JSON.stringify(text)} → ${JSON.stringify(expected)}`, () => expect(parseMailbox(text)).toEqual(expected))
  }
})

// Type-level: the workers-types shape of `env.EMAIL` is a SendEmailBinding.
interface WorkersEmailMessage {
  readonly from: string
  readonly to: string
}
interface WorkersEmailMessageBuilder {
  from: string | { email: string; name: string }
  to: string | Array<string>
  subject: string
  replyTo?: string | { email: string; name: string }
  headers?: Record<string, string>
  text?: string
  html?: string
}
interface WorkersSendEmail {
  send(message: WorkersEmailMessage): Promise<{ messageId: string }>
  send(builder: WorkersEmailMessageBuilder): Promise<{ messageId: string }>
}
export const _assignable = (env: { EMAIL: WorkersSendEmail }): SendEmailBinding => env.EMAIL
