import { Alert, Alerter } from "@hookgate/core/alerts"
import { Mailer } from "@hookgate/core/mail"
import { makeScriptedMailer, MailerSteps, type ScriptedMailerOptions } from "@hookgate/testing"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either, Layer } from "effect"
import { EmailAlerter } from "../src/index.js"

const alert = (overrides: Partial<ConstructorParameters<typeof Alert>[0]> = {}) =>
  new Alert({
    id: "capped:test:o1:tok",
    kind: "capped",
    orderKey: "test:o1",
    message: "order test:o1 reached the cap of 8 attempts; last error: resend: transient failure",
    createdAt: Date.UTC(2026, 10, 29, 9, 0),
    deliveredAt: null,
    deliveryError: null,
    ...overrides
  })

const owner = { to: "owner@example.com", from: "hookgate@shop.example", retryBase: "1 millis" } as const

/** The email alerter on a scripted mailer of its own. */
const withMailer = (script: ScriptedMailerOptions = {}) =>
  Effect.gen(function*() {
    const mailer = yield* makeScriptedMailer(script)
    const alerter = yield* EmailAlerter.make(owner).pipe(Effect.provideService(Mailer, mailer))
    return { mailer, alerter }
  })

describe("EmailAlerter", () => {
  it.effect("emails the owner, under the alert's own idempotency key", () =>
    Effect.gen(function*() {
      const { alerter, mailer } = yield* withMailer()
      yield* alerter.alert(alert())
      const [delivered] = yield* mailer.delivered
      expect(delivered!.idempotencyKey).toBe("hookgate/alert/capped:test:o1:tok")
      expect(delivered!.email).toMatchObject({
        from: "hookgate@shop.example",
        to: "owner@example.com",
        subject: "[hookgate] an order reached the attempt cap: test:o1",
        headers: { "X-Hookgate-Alert": "capped" }
      })
      expect(delivered!.email.text).toContain("reached the cap of 8 attempts")
      expect(delivered!.email.text).toContain("raised: 2026-11-29T09:00:00.000Z")
    }))

  it.effect("refuses an alert that the mailer is misconfigured: it would go through that very mailer", () =>
    Effect.gen(function*() {
      const { alerter, mailer } = yield* withMailer()
      const refused = yield* Effect.either(alerter.alert(alert({ id: "mailer_misconfigured:resend:x", kind: "mailer_misconfigured", orderKey: null })))
      expect(Either.isLeft(refused) && refused.left._tag).toBe("AlertFailed")
      expect(yield* mailer.calls).toHaveLength(0)
    }))

  it.effect("a repeated attempt of one alert is one email with a mailer that honours keys", () =>
    Effect.gen(function*() {
      const { alerter, mailer } = yield* withMailer()
      yield* alerter.alert(alert())
      yield* alerter.alert(alert())
      expect(yield* mailer.delivered).toHaveLength(1)
      expect(yield* mailer.calls).toHaveLength(2)
    }))

  it.live("retries a transient failure briefly", () =>
    Effect.gen(function*() {
      const { alerter, mailer } = yield* withMailer({ script: [MailerSteps.transient(), MailerSteps.transient()] })
      yield* alerter.alert(alert())
      expect(yield* mailer.calls).toHaveLength(3)
      expect(yield* mailer.delivered).toHaveLength(1)
    }))

  it.live("a rejection, or a transient failure asking for a long wait, fails the attempt at once", () =>
    Effect.gen(function*() {
      for (const step of [MailerSteps.rejected("invalid from address"), MailerSteps.transient({ retryAfter: "1 hour" })]) {
        const { alerter, mailer } = yield* withMailer({ script: [step] })
        const result = yield* Effect.either(alerter.alert(alert()))
        expect(Either.isLeft(result) && result.left._tag).toBe("AlertFailed")
        expect(Either.isLeft(result) && result.left.detail).toMatch(/^email to the owner failed: scripted: /)
        expect(yield* mailer.calls).toHaveLength(1)
      }
    }))

  it.effect("an alert without an order, and a very long id, still get a subject and a key within 256 characters", () =>
    Effect.gen(function*() {
      const { alerter, mailer } = yield* withMailer()
      yield* alerter.alert(alert({ id: `mailer_quota:${"x".repeat(300)}`, kind: "mailer_quota", orderKey: null }))
      const [delivered] = yield* mailer.delivered
      expect(delivered!.email.subject).toBe("[hookgate] the mailer refuses sends for now")
      expect(delivered!.idempotencyKey).toMatch(/^hookgate\/alert\/sha256-[0-9a-f]{64}$/)
    }))

  it.effect("layerConfig reads HOOKGATE_ALERT_EMAIL_TO and HOOKGATE_ALERT_EMAIL_FROM", () =>
    Effect.gen(function*() {
      const mailer = yield* makeScriptedMailer()
      const config = ConfigProvider.fromMap(
        new Map([["HOOKGATE_ALERT_EMAIL_TO", "boss@example.com"], ["HOOKGATE_ALERT_EMAIL_FROM", "alerts@example.com"]])
      )
      yield* Effect.flatMap(Alerter, (alerter) => alerter.alert(alert())).pipe(
        Effect.provide(
          EmailAlerter.layerConfig().pipe(
            Layer.provide(Layer.succeed(Mailer, mailer)),
            Layer.provide(Layer.setConfigProvider(config))
          )
        )
      )
      expect((yield* mailer.delivered)[0]!.email).toMatchObject({ to: "boss@example.com", from: "alerts@example.com" })
    }))
})
