import { sha256Hex } from "@hookgate/core"
import { orderIdempotencyKey } from "@hookgate/core/mail"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import * as net from "node:net"
import { IDEMPOTENCY_HEADER, make, type SmtpOptions } from "../src/Smtp.js"
import { type SmtpTestServerShape, startSmtpTestServer } from "../src/testing/index.js"
import { email, selfSignedCertificate, sendError } from "./support.js"

let cert: { key: string; cert: string }
let starttls: SmtpTestServerShape
let implicit: SmtpTestServerShape
let plain: SmtpTestServerShape
beforeAll(async () => {
  cert = await selfSignedCertificate()
  starttls = await startSmtpTestServer({ security: "starttls", ...cert })
  implicit = await startSmtpTestServer({ security: "tls", ...cert })
  plain = await startSmtpTestServer({ security: "none", users: false })
})
afterAll(async () => {
  await Promise.all([starttls.close(), implicit.close(), plain.close()])
})
beforeEach(() => {
  starttls.reset()
  implicit.reset()
  plain.reset()
})

// A key that fits is derived without a digest: synchronously.
const KEY = Effect.runSync(orderIdempotencyKey("test:o1"))

/** A mailer on `server`, trusting the test's self-signed certificate. */
const mailerFor = (server: SmtpTestServerShape, overrides: Partial<SmtpOptions> = {}) =>
  make({ ...server.mailerOptions, tls: { ca: cert.cert }, timeout: "5 seconds", ...overrides })

const header = (raw: string, name: string) =>
  raw.split("\r\n\r\n", 1)[0]!.replace(/\r\n[ \t]+/g, " ").split("\r\n")
    .find((line) => line.toLowerCase().startsWith(`${name.toLowerCase()}:`))?.slice(name.length + 1).trim()

describe("SMTP mailer against a real SMTP server", () => {
  it.scoped("STARTTLS with a self-signed certificate and AUTH: one message, encrypted, as the user", () =>
    Effect.gen(function*() {
      const mailer = yield* mailerFor(starttls)
      expect(mailer.honoursIdempotencyKeys).toBe(false)
      expect(mailer.idempotencyKeyWindow).toBeUndefined()
      const receipt = yield* mailer.send(
        email({ html: "<p>Thank you.</p>", replyTo: "help@example.com", headers: { "X-Order": "o1" } }),
        { idempotencyKey: KEY }
      )
      const [received] = starttls.messages
      expect(starttls.messages).toHaveLength(1)
      expect(received).toMatchObject({ from: "shop@example.com", to: ["buyer@example.com"], secure: true, user: "hookgate", reply: 250 })
      expect(receipt).toMatchObject({ mailer: "smtp", messageId: received!.messageId })
      expect(header(received!.raw, "Subject")).toBe("Your order")
      expect(header(received!.raw, "Reply-To")).toBe("help@example.com")
      expect(header(received!.raw, "X-Order")).toBe("o1")
      expect(header(received!.raw, IDEMPOTENCY_HEADER)).toBe(KEY)
      expect(received!.raw).toContain("Thank you.")
      expect(received!.raw).toContain("multipart/alternative")
    }))

  it.scoped("the Message-ID is derived from the idempotency key: the same for every attempt, another for another order", () =>
    Effect.gen(function*() {
      const mailer = yield* mailerFor(starttls)
      const first = yield* mailer.send(email(), { idempotencyKey: KEY })
      const again = yield* mailer.send(email({ subject: "Your order (again)" }), { idempotencyKey: KEY })
      const other = yield* mailer.send(email(), { idempotencyKey: yield* orderIdempotencyKey("test:o2") })
      expect(first.messageId).toBe(`<hookgate.${(yield* sha256Hex(KEY)).slice(0, 32)}@example.com>`)
      expect(again.messageId).toBe(first.messageId)
      expect(other.messageId).not.toBe(first.messageId)
      // SMTP has no idempotency: the server got all three, two of them under one Message-ID.
      expect(starttls.messages.map((m) => m.messageId)).toEqual([first.messageId, first.messageId, other.messageId])
    }))

  it.scoped("implicit TLS (SMTPS) works the same", () =>
    Effect.gen(function*() {
      const mailer = yield* mailerFor(implicit, { security: "tls" })
      yield* mailer.send(email(), { idempotencyKey: KEY })
      expect(implicit.messages.map((m) => [m.secure, m.user])).toEqual([[true, "hookgate"]])
    }))

  it.scoped("a relay without TLS or AUTH, security none", () =>
    Effect.gen(function*() {
      const mailer = yield* make({ ...plain.mailerOptions, timeout: "5 seconds" })
      yield* mailer.send(email(), { idempotencyKey: KEY })
      expect(plain.messages.map((m) => [m.secure, m.user])).toEqual([[false, undefined]])
    }))

  it.scoped("a wrong password: the server's 535 is Misconfigured (orders are held, the owner alerted); the password is in no error", () =>
    Effect.gen(function*() {
      const mailer = yield* mailerFor(starttls, { auth: { user: "hookgate", password: Redacted.make("wrong-password-123") } })
      const error = yield* sendError(mailer, email(), KEY)
      expect(error).toMatchObject({ _tag: "Misconfigured", code: "smtp_535" })
      expect(error.message).toContain("535")
      expect(JSON.stringify(error) + error.message).not.toContain("wrong-password-123")
      expect(starttls.logins).toEqual([{ user: "hookgate", ok: false }])
      expect(starttls.messages).toEqual([])
    }))

  it.scoped("a certificate the client does not trust is Misconfigured, and nothing is sent", () =>
    Effect.gen(function*() {
      const mailer = yield* make({ ...starttls.mailerOptions, timeout: "5 seconds" })
      const error = yield* sendError(mailer, email(), KEY)
      expect(error).toMatchObject({ _tag: "Misconfigured", code: "tls" })
      expect(starttls.logins).toEqual([])
      expect(starttls.messages).toEqual([])
    }))

  it.scoped("implicit TLS against a port that speaks plain SMTP: Misconfigured", () =>
    Effect.gen(function*() {
      const mailer = yield* make({ host: plain.host, port: plain.port, security: "tls", timeout: "5 seconds" })
      expect(yield* sendError(mailer, email(), KEY)).toMatchObject({ _tag: "Misconfigured", code: "tls" })
      expect(plain.messages).toEqual([])
    }))

  it.scoped("STARTTLS required, but the server does not offer it: Misconfigured, never sent in the clear", () =>
    Effect.gen(function*() {
      const mailer = yield* make({ host: plain.host, port: plain.port, security: "starttls", timeout: "5 seconds" })
      const error = yield* sendError(mailer, email(), KEY)
      expect(error).toMatchObject({ _tag: "Misconfigured" })
      expect(plain.messages).toEqual([])
    }))

  const replies = [
    { stage: "MAIL FROM", code: 421, message: "4.3.2 Service shutting down", tag: "Transient" },
    { stage: "RCPT TO", code: 451, message: "4.7.1 Greylisted, try again later", tag: "Transient" },
    { stage: "DATA", code: 451, message: "4.3.0 Local error in processing", tag: "Transient" },
    { stage: "RCPT TO", code: 550, message: "5.1.1 No such user", tag: "Rejected", code_: "smtp_550" },
    { stage: "RCPT TO", code: 553, message: "5.1.3 Mailbox name not allowed", tag: "Rejected", code_: "smtp_553" },
    { stage: "DATA", code: 554, message: "5.7.1 Message rejected as spam", tag: "Rejected", code_: "smtp_554" },
    { stage: "MAIL FROM", code: 550, message: "5.7.1 Sender not allowed", tag: "Misconfigured", code_: "smtp_550" }
  ] as const
  for (const reply of replies) {
    it.scoped(`${reply.code} to ${reply.stage} is ${reply.tag}`, () =>
      Effect.gen(function*() {
        const mailer = yield* mailerFor(starttls)
        starttls.failNext(1, { _tag: "Reply", stage: reply.stage, code: reply.code, message: reply.message })
        const error = yield* sendError(mailer, email(), KEY)
        expect(error._tag).toBe(reply.tag)
        if ("code_" in reply) expect(error).toMatchObject({ code: reply.code_ })
        expect(error.message).toContain(String(reply.code))
        expect(error.message).toContain(reply.message)
        // The pool is still usable: the next send goes out.
        yield* mailer.send(email(), { idempotencyKey: KEY })
        expect(starttls.messages.filter((m) => m.reply === 250)).toHaveLength(1)
      }))
  }

  it.scoped("the connection dropped after the whole message was sent: Unknown (the server may hold it)", () =>
    Effect.gen(function*() {
      const mailer = yield* mailerFor(starttls)
      starttls.failNext(1, { _tag: "Drop", stage: "DATA" })
      const error = yield* sendError(mailer, email(), KEY)
      expect(error._tag).toBe("Unknown")
      expect(error.detail).toContain("after the message was sent")
      expect(starttls.messages.map((m) => m.reply)).toEqual(["dropped"])
      // The retry goes out under the same Message-ID: the second copy is recognisable.
      yield* mailer.send(email(), { idempotencyKey: KEY })
      const [dropped, resent] = starttls.messages
      expect(resent!.messageId).toBe(dropped!.messageId)
    }))

  it.scoped("the connection dropped before the message was sent: Transient (nothing to duplicate)", () =>
    Effect.gen(function*() {
      const mailer = yield* mailerFor(starttls)
      starttls.failNext(1, { _tag: "Drop", stage: "RCPT TO" })
      const error = yield* sendError(mailer, email(), KEY)
      expect(error._tag).toBe("Transient")
      expect(error.detail).toContain("nothing of the message was sent")
      expect(starttls.messages).toEqual([])
    }))

  it.scoped("no reply to the message within the timeout: Unknown; no reply to RCPT TO within it: Transient", () =>
    Effect.gen(function*() {
      const mailer = yield* mailerFor(starttls, { timeout: "1 second" })
      starttls.failNext(1, { _tag: "Stall", stage: "DATA" })
      const afterData = yield* sendError(mailer, email(), KEY)
      expect(afterData).toMatchObject({ _tag: "Unknown" })
      // Our bound or nodemailer's socket timeout (set to the same), whichever fires first: both say the message went.
      expect(afterData.detail).toMatch(/no reply to the message within 1s|after the message was sent/)
      starttls.failNext(1, { _tag: "Stall", stage: "RCPT TO" })
      const beforeData = yield* sendError(mailer, email(), KEY)
      expect(beforeData).toMatchObject({ _tag: "Transient" })
      expect(beforeData.detail).toMatch(/nothing of (it|the message) was sent/)
      expect(starttls.messages.map((m) => m.reply)).toEqual(["dropped"])
    }))

  it.scoped("nobody listening: Transient", () =>
    Effect.gen(function*() {
      const port = yield* Effect.promise(() =>
        new Promise<number>((resolve) => {
          const probe = net.createServer().listen(0, "127.0.0.1", () => {
            const { port } = probe.address() as net.AddressInfo
            probe.close(() => resolve(port))
          })
        })
      )
      const mailer = yield* make({ host: "127.0.0.1", port, security: "none", timeout: "5 seconds" })
      const error = yield* sendError(mailer, email(), KEY)
      expect(error._tag).toBe("Transient")
      expect(error.detail).toContain("ECONNREFUSED")
    }))

  it.scoped("an address that is not one mailbox, or a header with a line break, is Rejected before anything is sent", () =>
    Effect.gen(function*() {
      const mailer = yield* mailerFor(starttls)
      const cases = [
        email({ from: "shop-at-example.com" }),
        email({ to: "a@example.com, b@example.com" }),
        email({ replyTo: "not an address" }),
        email({ headers: { "X-Order": "o1\r\nBcc: victim@example.com" } })
      ]
      for (const outgoing of cases) {
        expect(yield* sendError(mailer, outgoing, KEY)).toMatchObject({ _tag: "Rejected", code: "invalid_email" })
      }
      expect(starttls.connections).toBe(0)
    }))

  it.scoped("the pool: concurrent sends share at most poolSize connections, and every message arrives once", () =>
    Effect.gen(function*() {
      const mailer = yield* mailerFor(starttls, { poolSize: 2 })
      const before = starttls.connections
      const keys = yield* Effect.forEach(Array.from({ length: 12 }, (_, i) => `test:pool${i}`), orderIdempotencyKey)
      const receipts = yield* Effect.forEach(keys, (key, i) => mailer.send(email({ to: `buyer${i}@example.com` }), { idempotencyKey: key }), {
        concurrency: "unbounded"
      })
      expect(new Set(receipts.map((r) => r.messageId)).size).toBe(12)
      expect(starttls.messages.map((m) => m.to[0]).sort()).toEqual(keys.map((_, i) => `buyer${i}@example.com`).sort())
      expect(starttls.connections - before).toBeLessThanOrEqual(2)
      expect(new Set(starttls.messages.map((m) => m.connection)).size).toBeLessThanOrEqual(2)
    }))
})
