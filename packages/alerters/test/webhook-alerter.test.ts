import { FetchHttpClient } from "@effect/platform"
import { Alert, Alerter } from "@hookgate/core/alerts"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@effect/vitest"
import { Cause, ConfigProvider, Effect, Either, Exit, Layer, Redacted } from "effect"
import { type AlertHook, startAlertHook } from "./hook-server.js"
import { WebhookAlerter } from "../src/index.js"

const alert = new Alert({
  id: "failed:test:o2:tok",
  kind: "failed",
  orderKey: "test:o2",
  message: "order test:o2 was rejected by the mailer and will not be retried: invalid from address",
  createdAt: Date.UTC(2026, 10, 29, 9, 0),
  deliveredAt: null,
  deliveryError: null
})

let hook: AlertHook
beforeAll(async () => {
  hook = await startAlertHook()
})
afterAll(() => hook.close())
beforeEach(() => hook.reset())

const SECRET_PATH = "/services/T000/B000/s3cr3tTOKEN"

const alerterFor = (options: Partial<WebhookAlerter.WebhookAlerterOptions> = {}) =>
  WebhookAlerter.make({ url: Redacted.make(`${hook.url}${SECRET_PATH}`), retryBase: "1 millis", ...options }).pipe(
    Effect.provide(FetchHttpClient.layer)
  )

describe("WebhookAlerter", () => {
  it.live("POSTs { text, alert } as JSON, Slack-compatible", () =>
    Effect.gen(function*() {
      const alerter = yield* alerterFor({ bearerToken: Redacted.make("hook-token") })
      yield* alerter.alert(alert)
      const [received] = hook.received
      expect(received).toMatchObject({ path: SECRET_PATH, contentType: "application/json", authorization: "Bearer hook-token" })
      expect(received!.body.text).toMatch(/^hookgate: an order was rejected by the mailer: test:o2\n/)
      expect(received!.body.text).toContain("invalid from address")
      expect(received!.body.alert).toEqual({
        id: "failed:test:o2:tok",
        kind: "failed",
        orderKey: "test:o2",
        message: alert.message,
        createdAt: alert.createdAt,
        deliveredAt: null,
        deliveryError: null,
        attempts: 0,
        nextAttemptAt: null,
        resolvedAt: null,
        resolutionNote: null
      })
    }))

  it.live("retries a 5xx, then delivers", () =>
    Effect.gen(function*() {
      hook.answerNext(500, "oops")
      const alerter = yield* alerterFor()
      yield* alerter.alert(alert)
      expect(hook.received.map((r) => r.status)).toEqual([500, 200])
    }))

  it.live("a 4xx fails the attempt at once, with the endpoint's answer", () =>
    Effect.gen(function*() {
      hook.answerNext(400, "invalid_payload")
      const alerter = yield* alerterFor()
      const result = yield* Effect.either(alerter.alert(alert))
      expect(Either.isLeft(result) && result.left.detail).toBe("the alert webhook answered 400: invalid_payload")
      expect(hook.received).toHaveLength(1)
    }))

  it.live("a stuck endpoint times out", () =>
    Effect.gen(function*() {
      hook.delayNext(500)
      const alerter = yield* alerterFor({ timeout: "50 millis", retries: 0 })
      const result = yield* Effect.either(alerter.alert(alert))
      expect(Either.isLeft(result) && result.left.detail).toContain("no answer from the alert webhook within 50ms")
    }))

  it.live("the URL (a secret) never appears in a failure", () =>
    Effect.gen(function*() {
      const alerter = yield* WebhookAlerter.make({
        url: Redacted.make(`http://127.0.0.1:9${SECRET_PATH}`),
        retries: 0
      }).pipe(Effect.provide(FetchHttpClient.layer))
      const exit = yield* Effect.exit(alerter.alert(alert))
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit)) {
        const text = Cause.pretty(exit.cause)
        expect(text).toContain("could not reach the alert webhook")
        expect(text).not.toContain("s3cr3tTOKEN")
      }
    }))

  it.live("layerConfig reads HOOKGATE_ALERT_WEBHOOK_URL and HOOKGATE_ALERT_WEBHOOK_TOKEN", () =>
    Effect.gen(function*() {
      const config = ConfigProvider.fromMap(new Map([
        ["HOOKGATE_ALERT_WEBHOOK_URL", `${hook.url}/from-config`],
        ["HOOKGATE_ALERT_WEBHOOK_TOKEN", "config-token"]
      ]))
      yield* Effect.flatMap(Alerter, (alerter) => alerter.alert(alert)).pipe(
        Effect.provide(
          WebhookAlerter.layerConfig().pipe(
            Layer.provide(FetchHttpClient.layer),
            Layer.provide(Layer.setConfigProvider(config))
          )
        )
      )
      expect(hook.received.map((r) => [r.path, r.authorization])).toEqual([["/from-config", "Bearer config-token"]])
    }))
})
