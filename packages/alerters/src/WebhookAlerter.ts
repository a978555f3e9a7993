import { spanWhenTraced } from "@hookgate/core"
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { durationConfig } from "@hookgate/core"
import { Alert, AlertFailed, Alerter, type AlerterShape } from "@hookgate/core/alerts"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { headline, plainText } from "./internal/format.js"
import { retrying, type RetryOptions } from "./internal/retry.js"

/** Where alerts are POSTed, and how long a POST may take. */
export interface WebhookAlerterOptions extends RetryOptions {
  /** Where to POST; a Slack incoming-webhook URL is a secret, so it is `Redacted`. */
  readonly url: Redacted.Redacted<string>
  /** Sent as `Authorization: Bearer …` when set, for endpoints of your own. */
  readonly bearerToken?: Redacted.Redacted<string>
  /** One attempt (default 10 s). */
  readonly timeout?: Duration.DurationInput
}

/** Why one POST failed; `retryable` for a lost connection, a 429 or a 5xx. */
class PostFailed extends Data.TaggedError("PostFailed")<{ readonly detail: string; readonly retryable: boolean }> {}

const encodeAlert = (alert: Alert) => Schema.encodeSync(Alert)(alert)

/** The innermost cause's message: the outer RequestError's message names the URL, which is secret. */
const transportReason = (error: HttpClientError.HttpClientError) => {
  let current: unknown = error.cause
  let reason = error._tag === "RequestError" ? error.reason : "answer unreadable"
  for (let depth = 0; depth < 8 && typeof current === "object" && current !== null; depth++) {
    const message = (current as { message?: unknown }).message
    if (typeof message === "string") reason = message
    current = (current as { cause?: unknown }).cause
  }
  return reason
}

/**
 * POSTs `{ text, alert }` as JSON to a URL through `HttpClient`: `text` is what
 * a Slack (or Mattermost, Discord-with-/slack, …) incoming webhook shows;
 * `alert` is the stored alert, for endpoints that want the fields.
 */
export const make = (options: WebhookAlerterOptions): Effect.Effect<AlerterShape, never, HttpClient.HttpClient> =>
  Effect.map(HttpClient.HttpClient, (client) => {
    const timeout = Duration.decode(options.timeout ?? Duration.seconds(10))
    const url = Redacted.value(options.url)
    // Belt and braces: no detail that leaves this module may contain the URL.
    const scrub = (text: string) => text.split(url).join("<alert webhook>")

    const post = (alert: Alert) => {
      let request = HttpClientRequest.post(url).pipe(
        HttpClientRequest.bodyUnsafeJson({ text: `hookgate: ${headline(alert)}\n${plainText(alert)}`, alert: encodeAlert(alert) })
      )
      if (options.bearerToken !== undefined) request = HttpClientRequest.bearerToken(request, options.bearerToken)
      return client.execute(request).pipe(
        Effect.mapError((error) => new PostFailed({ detail: `could not reach the alert webhook: ${transportReason(error)}`, retryable: true })),
        Effect.flatMap((response) =>
          response.status >= 200 && response.status < 300
            ? Effect.void
            : Effect.flatMap(Effect.orElseSucceed(response.text, () => ""), (body) =>
              Effect.fail(
                new PostFailed({
                  detail: `the alert webhook answered ${response.status}${body ? `: ${body.slice(0, 200)}` : ""}`,
                  retryable: response.status === 429 || response.status >= 500
                })
              ))
        ),
        Effect.timeoutFail({
          duration: timeout,
          onTimeout: () => new PostFailed({ detail: `no answer from the alert webhook within ${Duration.format(timeout)}`, retryable: true })
        })
      )
    }

    const alert = (alert: Alert) =>
      retrying(post(alert), options, (error) => error.retryable).pipe(
        Effect.mapError((error) => new AlertFailed({ detail: scrub(error.detail) })),
        spanWhenTraced("alerter.webhook", { kind: alert.kind })
      )
    return { alert }
  })

/** The webhook alerter as the `Alerter` service; needs an `HttpClient`. */
export const layer = (options: WebhookAlerterOptions): Layer.Layer<Alerter, never, HttpClient.HttpClient> =>
  Layer.effect(Alerter, make(options))

/**
 * Reads `HOOKGATE_ALERT_WEBHOOK_URL` (redacted), `HOOKGATE_ALERT_WEBHOOK_TOKEN` (optional,
 * redacted: the bearer token) and `HOOKGATE_ALERT_WEBHOOK_TIMEOUT` (default 10 seconds).
 */
export const WebhookAlerterConfig: Config.Config<WebhookAlerterOptions> = Config.all({
  url: Config.redacted("HOOKGATE_ALERT_WEBHOOK_URL"),
  bearerToken: Config.option(Config.redacted("HOOKGATE_ALERT_WEBHOOK_TOKEN")),
  timeout: durationConfig("HOOKGATE_ALERT_WEBHOOK_TIMEOUT").pipe(Config.withDefault(Duration.seconds(10)))
}).pipe(Config.map(({ bearerToken, ...options }) => Option.match(bearerToken, {
  onNone: () => options,
  onSome: (token) => ({ ...options, bearerToken: token })
})))

/** The webhook alerter from Config (`WebhookAlerterConfig` by default). */
export const layerConfig = (
  config: Config.Config<WebhookAlerterOptions> = WebhookAlerterConfig
): Layer.Layer<Alerter, ConfigError.ConfigError, HttpClient.HttpClient> => Layer.effect(Alerter, Effect.flatMap(config, make))
