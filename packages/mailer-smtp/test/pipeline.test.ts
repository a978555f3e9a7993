import { OrderStore, receive, RetryPolicy, sweep } from "@hookgate/core"
import { AlertStore } from "@hookgate/core/alerts"
import { MailerCircuit } from "@hookgate/core/mail"
import { Providers } from "@hookgate/core/providers"
import { MemoryStore, paidEvent, RecordingAlerter, signTestRequest, TestProvider, TestRenderer } from "@hookgate/testing"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@effect/vitest"
import { Clock, Duration, Effect, Layer, Redacted } from "effect"
import { layer as smtpLayer, type SmtpOptions } from "../src/Smtp.js"
import { type SmtpTestServerShape, startSmtpTestServer } from "../src/testing/index.js"
import { selfSignedCertificate } from "./support.js"

const SECRET = Redacted.make("whsec_smtp_pipeline")

let server: SmtpTestServerShape
let ca: string
beforeAll(async () => {
  const cert = await selfSignedCertificate()
  ca = cert.cert
  server = await startSmtpTestServer({ security: "starttls", ...cert })
})
afterAll(() => server.close())
beforeEach(() => server.reset())

/** The pipeline on the in-memory store, sending over STARTTLS to a real SMTP server. */
const environment = (overrides: Partial<SmtpOptions> = {}) =>
  Layer.mergeAll(
    MemoryStore.layer,
    smtpLayer({ ...server.mailerOptions, tls: { ca }, timeout: "5 seconds", ...overrides }),
    RecordingAlerter.layer(),
    Providers.layer(TestProvider.make({ secret: SECRET })),
    TestRenderer.layer,
    RetryPolicy.layer({ inRequestBase: 0, backoffBase: "50 millis" }),
    MailerCircuit.layer()
  )

const webhook = (orderId: string) =>
  Effect.flatMap(
    signTestRequest(
      SECRET,
      paidEvent(`evt_${orderId}`, { orderId, email: `${orderId}@example.com`, product: "course-101", amount: 1900, currency: "usd" })
    ),
    (request) => receive("test", request)
  )

const order = (id: string) =>
  Effect.flatMap(OrderStore, (store) => Effect.flatMap(store.get(`test:${id}`), (o) => Effect.orDie(o)))

const untilDue = (at: number) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sleep(Duration.millis(Math.max(0, at - now) + 5)))

const alerts = Effect.flatMap(AlertStore, (s) => s.list({ limit: 20 }))

describe("the pipeline through a real SMTP server", () => {
  it.live("sent once with the order's Message-ID; a replayed webhook sends nothing", () =>
    Effect.gen(function*() {
      const outcome = yield* webhook("o1")
      expect(outcome._tag).toBe("Sent")
      expect(server.messages).toHaveLength(1)
      const [message] = server.messages
      expect(message).toMatchObject({ to: ["o1@example.com"], secure: true, reply: 250 })
      expect(yield* order("o1")).toMatchObject({ status: "sent", messageId: message!.messageId })
      expect((yield* webhook("o1"))._tag).toBe("Duplicate")
      expect(server.messages).toHaveLength(1)
    }).pipe(Effect.provide(environment())))

  it.live("a 451 is retried in the request and the email goes out once", () =>
    Effect.gen(function*() {
      server.failNext(1, { _tag: "Reply", stage: "RCPT TO", code: 451, message: "4.7.1 Greylisted" })
      expect((yield* webhook("o2"))._tag).toBe("Sent")
      expect(server.messages.map((m) => m.to[0])).toEqual(["o2@example.com"])
    }).pipe(Effect.provide(environment())))

  it.live("dropped after DATA: recorded uncertain; the sweep resends under the same Message-ID and flags a possible duplicate", () =>
    Effect.gen(function*() {
      // An uncertain attempt is not retried in the request by a mailer that ignores keys.
      server.failNext(1, { _tag: "Drop", stage: "DATA" })
      expect((yield* webhook("o3"))._tag).toBe("Retry")
      const uncertain = yield* order("o3")
      expect(uncertain).toMatchObject({ status: "pending", uncertain: true })
      expect(server.messages.map((m) => m.reply)).toEqual(["dropped"])

      yield* untilDue(uncertain.nextAttemptAt)
      expect(yield* sweep()).toMatchObject({ scanned: 1, sent: 1 })
      const sent = yield* order("o3")
      expect(sent).toMatchObject({ status: "sent", possibleDuplicates: 1 })
      const ids = new Set(server.messages.map((m) => m.messageId))
      expect(ids).toEqual(new Set([sent.messageId]))
      expect(server.messages.map((m) => m.reply)).toEqual(["dropped", 250])
      expect((yield* alerts).map((a) => a.kind)).toContain("possible_duplicate")
    }).pipe(Effect.provide(environment())))

  it.live("a 550 for the recipient fails the order once and tells the operator", () =>
    Effect.gen(function*() {
      server.failNext(1, { _tag: "Reply", stage: "RCPT TO", code: 550, message: "5.1.1 No such user" })
      expect((yield* webhook("o4"))._tag).toBe("Failed")
      const failed = yield* order("o4")
      expect(failed).toMatchObject({ status: "failed", attempts: 1 })
      expect(failed.lastError).toContain("550 5.1.1 No such user")
      expect((yield* alerts).map((a) => a.kind)).toEqual(["failed"])
      expect(server.messages).toEqual([])
    }).pipe(Effect.provide(environment())))

  it.live("a wrong password (535) holds the order without counting the attempt and alerts mailer_misconfigured", () =>
    Effect.gen(function*() {
      const outcome = yield* webhook("o5")
      expect(outcome._tag).toBe("Held")
      expect(yield* order("o5")).toMatchObject({ status: "pending", attempts: 0 })
      const stored = yield* alerts
      expect(stored.map((a) => a.kind)).toEqual(["mailer_misconfigured"])
      expect(stored[0]!.message).toContain("535")
      expect(stored[0]!.message).not.toContain("not-the-password")
      expect(server.messages).toEqual([])
    }).pipe(Effect.provide(environment({ auth: { user: "hookgate", password: Redacted.make("not-the-password") } }))))
})
