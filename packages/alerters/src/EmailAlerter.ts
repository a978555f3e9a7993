import { RENAMED_SETTINGS, renamedConfig, spanWhenTraced, warnRenamed } from "@hookgate/core"
import { type Alert, AlertFailed, Alerter, type AlerterShape } from "@hookgate/core/alerts"
import { alertIdempotencyKey, Mailer, type MailerError, OutgoingEmail } from "@hookgate/core/mail"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { headline, plainText } from "./internal/format.js"
import { retrying, type RetryOptions } from "./internal/retry.js"

/** Where alert emails go and come from. */
export interface EmailAlerterOptions extends RetryOptions {
  /** The owner's address. */
  readonly to: string
  /** A sender the mailer accepts (a verified domain). */
  readonly from: string
  /** Default `[hookgate]`. */
  readonly subjectPrefix?: string
}

/** A `retry-after` longer than this is not waited out inside the alert attempt. */
const MAX_WAIT = Duration.seconds(2)

const retryable = (error: MailerError) =>
  error._tag === "Transient" && (error.retryAfter === undefined || Duration.lessThanOrEqualTo(error.retryAfter, MAX_WAIT))

/**
 * Emails the owner through a `Mailer`: the pipeline's, or another one given to
 * this layer alone (`layer(options).pipe(Layer.provide(otherMailerLayer))`),
 * which is wise when the alert may be about the pipeline's mailer itself.
 * Each alert has its own idempotency key, `hookgate/alert/<alert id>`.
 */
export const make = (options: EmailAlerterOptions): Effect.Effect<AlerterShape, never, Mailer> =>
  Effect.map(Mailer, (mailer) => {
    const prefix = options.subjectPrefix ?? "[hookgate]"
    const alert = (alert: Alert) =>
      // An alert that the mailer is misconfigured cannot go through a mailer: it stays
      // stored and logged at ERROR (the webhook alerter delivers it when configured).
      alert.kind === "mailer_misconfigured"
        ? Effect.fail(new AlertFailed({ detail: "the email alerter does not send alerts about a misconfigured mailer" }))
        : Effect.gen(function*() {
        const email = new OutgoingEmail({
          from: options.from,
          to: options.to,
          subject: `${prefix} ${headline(alert)}`,
          text: plainText(alert),
          headers: { "X-Hookgate-Alert": alert.kind }
        })
        const idempotencyKey = yield* alertIdempotencyKey(alert.id)
        yield* retrying(
          mailer.send(email, { idempotencyKey }),
          options,
          retryable,
          (error) => (error._tag === "Transient" && error.retryAfter !== undefined ? error.retryAfter : Duration.zero)
        )
      }).pipe(
        Effect.mapError((error) => new AlertFailed({ detail: `email to the owner failed: ${error.message}` })),
        spanWhenTraced("alerter.email", { kind: alert.kind })
      )
    return { alert }
  })

/** The email alerter as the `Alerter` service; needs a `Mailer`. */
export const layer = (options: EmailAlerterOptions): Layer.Layer<Alerter, never, Mailer> =>
  Layer.effect(Alerter, make(options))

/**
 * Reads `HOOKGATE_OWNER_EMAIL` (the owner's address) and `HOOKGATE_FROM` (the sender), the
 * gateway's names; for this release also their former names, `HOOKGATE_ALERT_EMAIL_TO` and
 * `HOOKGATE_ALERT_EMAIL_FROM` (`layerConfig()` warns about them).
 */
export const EmailAlerterConfig: Config.Config<EmailAlerterOptions> = Config.all({
  to: renamedConfig(Config.nonEmptyString, RENAMED_SETTINGS.alertTo),
  from: renamedConfig(Config.nonEmptyString, RENAMED_SETTINGS.alertFrom)
})

/** The email alerter from Config (`EmailAlerterConfig` by default, warning about a former name it read). */
export const layerConfig = (
  config: Config.Config<EmailAlerterOptions> = EmailAlerterConfig
): Layer.Layer<Alerter, ConfigError.ConfigError, Mailer> =>
  Layer.effect(
    Alerter,
    Effect.zipRight(
      config === EmailAlerterConfig ? warnRenamed([RENAMED_SETTINGS.alertTo, RENAMED_SETTINGS.alertFrom]) : Effect.void,
      Effect.flatMap(config, make)
    )
  )
