import { FetchHttpClient } from "@effect/platform"
import { OrderStore, receive, RetryPolicy, sweep } from "@hookgate/core"
import { Alerter, AlertStore } from "@hookgate/core/alerts"
import { Mailer } from "@hookgate/core/mail"
import { Providers } from "@hookgate/core/providers"
import {
  MailerSteps,
  MemoryStore,
  paidEvent,
  ScriptedMailer,
  type ScriptedMailerOptions,
  signTestRequest,
  TestProvider,
  TestRenderer
} from "@hookgate/testing"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Redacted, TestClock } from "effect"
import { EmailAlerter, fanOut, WebhookAlerter } from "../src/index.js"
import { type AlertHook, startAlertHook } from "./hook-server.js"

const SECRET = Redacted.make("whsec_alerters")

let hook: AlertHook
beforeAll(async () => {
  hook = await startAlertHook()
})
afterAll(() => hook.close())

const webhook = (orderId: string) =>
  Effect.flatMap(
    signTestRequest(SECRET, paidEvent(`evt_${orderId}`, { orderId, email: `${orderId}@example.com`, amount: 1900, currency: "usd" })),
    (request) => receive("test", request)
  )
const order = (id: string) => Effect.flatMap(OrderStore, (s) => Effect.flatMap(s.get(`test:${id}`), (o) => Effect.orDie(o)))
const storedAlerts = Effect.flatMap(AlertStore, (s) => s.list({ limit: 10 }))

const pipeline = (alerter: Layer.Layer<Alerter>, mailer: ScriptedMailerOptions) =>
  Layer.mergeAll(
    MemoryStore.layer,
    ScriptedMailer.layer(mailer),
    alerter,
    Providers.layer(TestProvider.make({ secret: SECRET })),
    TestRenderer.layer,
    RetryPolicy.layer({ inRequestBase: 0 })
  )

const rejecting: ScriptedMailerOptions = { script: [MailerSteps.rejected("invalid from address")] }

describe("alerters through the pipeline", () => {
  it.effect("at the cap, the owner is emailed through a mailer of the alerter's own", () =>
    Effect.gen(function*() {
      // The orders' mailer always fails; the alert goes out through another one.
      const alertMailer = yield* ScriptedMailer.make({ name: "owner-mailer" })
      const alerter = EmailAlerter.layer({ to: "owner@example.com", from: "hookgate@shop.example" }).pipe(
        Layer.provide(Layer.succeed(Mailer, alertMailer))
      )
      yield* Effect.gen(function*() {
        expect((yield* webhook("o1"))._tag).toBe("Retry")
        for (let attempt = 2; attempt <= 8; attempt++) {
          yield* TestClock.setTime((yield* order("o1")).nextAttemptAt)
          yield* sweep()
        }
        expect((yield* order("o1")).status).toBe("capped")
        const [stored] = yield* storedAlerts
        expect(stored).toMatchObject({ kind: "capped", deliveryError: null })
        expect(stored!.deliveredAt).not.toBeNull()
        const delivered = yield* alertMailer.delivered
        expect(delivered.map((d) => [d.email.to, d.idempotencyKey])).toEqual([
          ["owner@example.com", `hookgate/alert/${stored!.id}`]
        ])
        expect(delivered[0]!.email.subject).toBe("[hookgate] an order reached the attempt cap: test:o1")
      }).pipe(Effect.provide(pipeline(alerter, { otherwise: MailerSteps.transient() })))
    }))

  it.live("a rejected order is posted to the webhook as { text, alert }", () =>
    Effect.gen(function*() {
      hook.reset()
      expect((yield* webhook("o2"))._tag).toBe("Failed")
      const [posted] = hook.received
      expect(posted!.body.alert).toMatchObject({ kind: "failed", orderKey: "test:o2" })
      expect(posted!.body.text).toContain("invalid from address")
    }).pipe(
      Effect.provide(
        pipeline(
          WebhookAlerter.layer({ url: Redacted.make(`${hook.url}/hook`) }).pipe(Layer.provide(FetchHttpClient.layer)),
          rejecting
        )
      )
    ))

  it.live("a failing channel is recorded on the stored alert; the other still delivers", () =>
    Effect.gen(function*() {
      hook.reset()
      hook.answerNext(500, "down")
      hook.answerNext(500, "down")
      const ownerMailer = yield* ScriptedMailer.make({ name: "owner-mailer" })
      const both = Layer.effect(
        Alerter,
        Effect.gen(function*() {
          const email = yield* EmailAlerter.make({ to: "owner@example.com", from: "hookgate@shop.example" }).pipe(
            Effect.provideService(Mailer, ownerMailer)
          )
          const post = yield* WebhookAlerter.make({ url: Redacted.make(`${hook.url}/hook`), retries: 1, retryBase: "1 millis" }).pipe(
            Effect.provide(FetchHttpClient.layer)
          )
          return fanOut({ email, webhook: post })
        })
      )
      yield* Effect.gen(function*() {
        expect((yield* webhook("o3"))._tag).toBe("Failed")
        const [stored] = yield* storedAlerts
        expect(stored!.deliveredAt).toBeNull()
        expect(stored!.deliveryError).toBe("webhook: the alert webhook answered 500: down (1 of 2 delivered)")
        expect(yield* ownerMailer.delivered).toHaveLength(1)
        expect(hook.received).toHaveLength(2)
      }).pipe(Effect.provide(pipeline(both, rejecting)))
    }))
})
