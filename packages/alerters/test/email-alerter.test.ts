import { Alert, Alerter } from "@hookgate/core/alerts"
import { Mailer } from "@hookgate/core/mail"
import { MailerSteps, ScriptedMailer, type ScriptedMailerOptions } from "@hookgate/testing"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either, Layer, Logger } from "effect"
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
    const mailer = yield* ScriptedMailer.make(script)
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

  const sentWith = (settings: ReadonlyArray<readonly [string, string]>) =>
    Effect.gen(function*() {
      const mailer = yield* ScriptedMailer.make()
      const warnings: Array<string> = []
      const logger = Logger.make(({ logLevel, message }) => {
        if (logLevel._tag === "Warning") warnings.push(String(Array.isArray(message) ? message.join(" ") : message))
      })
      yield* Effect.flatMap(Alerter, (alerter) => alerter.alert(alert())).pipe(
        Effect.provide(
          EmailAlerter.layerConfig().pipe(
            Layer.provide(Layer.succeed(Mailer, mailer)),
            Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(settings)))),
            Layer.provide(Logger.replace(Logger.defaultLogger, logger))
          )
        )
      )
      return { email: (yield* mailer.delivered)[0]!.email, warnings }
    })

  it.effect("layerConfig reads HOOKGATE_OWNER_EMAIL and HOOKGATE_FROM, the gateway's names", () =>
    Effect.gen(function*() {
      const { email, warnings } = yield* sentWith([["HOOKGATE_OWNER_EMAIL", "boss@example.com"], ["HOOKGATE_FROM", "alerts@example.com"]])
      expect(email).toMatchObject({ to: "boss@example.com", from: "alerts@example.com" })
      expect(warnings).toEqual([])
    }))

  it.effect("the former names HOOKGATE_ALERT_EMAIL_TO and HOOKGATE_ALERT_EMAIL_FROM still work for this release, with a warning naming the new ones", () =>
    Effect.gen(function*() {
      const { email, warnings } = yield* sentWith([["HOOKGATE_ALERT_EMAIL_TO", "boss@example.com"], ["HOOKGATE_ALERT_EMAIL_FROM", "alerts@example.com"]])
      expect(email).toMatchObject({ to: "boss@example.com", from: "alerts@example.com" })
      expect(warnings).toEqual([
        "HOOKGATE_ALERT_EMAIL_TO is deprecated: rename it HOOKGATE_OWNER_EMAIL (the former name is read until the next release)",
        "HOOKGATE_ALERT_EMAIL_FROM is deprecated: rename it HOOKGATE_FROM (the former name is read until the next release)"
      ])
      // Both set: the new name wins, and the former one is called out.
      const both = yield* sentWith([["HOOKGATE_OWNER_EMAIL", "new@example.com"], ["HOOKGATE_ALERT_EMAIL_TO", "old@example.com"], ["HOOKGATE_FROM", "alerts@example.com"]])
      expect(both.email.to).toBe("new@example.com")
      expect(both.warnings).toEqual(["HOOKGATE_ALERT_EMAIL_TO is ignored: HOOKGATE_OWNER_EMAIL is set (HOOKGATE_ALERT_EMAIL_TO is its former name: remove it)"])
    }))

  it.effect("with neither name set, the error names the new one", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(sentWith([["HOOKGATE_FROM", "alerts@example.com"]]))
      expect(String(error)).toContain("HOOKGATE_OWNER_EMAIL")
      expect(String(error)).not.toContain("HOOKGATE_ALERT_EMAIL_TO")
    }))
})
