import { EpochMillis, RetryPolicy, spanWhenTraced } from "@hookgate/core"
import { AlertFailed, alertAttemptRecord, type AlerterShape, type AlertStoreShape } from "@hookgate/core/alerts"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Background } from "./background.js"

/** What the stored alert says until the deferred attempt records its outcome. */
export const DEFERRED_DETAIL = "delivery deferred to ctx.waitUntil; its outcome is recorded when it ends"

/**
 * An `Alerter` that, inside a Worker invocation, hands the real delivery to
 * `ctx.waitUntil` and answers at once, so a slow alert channel (an email, a
 * POST) never holds up the webhook's answer. Outside an invocation it delivers inline.
 *
 * The core attempts a stored alert and records the outcome on it. Answering
 * "deferred" as a failure keeps that record honest: the stored alert shows the
 * deferral, not a delivery that has not happened; when the deferred attempt
 * ends it records the real outcome (delivered at, or the error, with the attempt
 * counted and the next one scheduled, as `attemptAlert` does) on the same alert.
 * `deferred: true` tells the core not to count the deferral as an attempt.
 */
export const deferredAlerter = (inner: AlerterShape, store: AlertStoreShape): AlerterShape => ({
  alert: (alert) =>
    Effect.flatMap(Effect.serviceOption(Background), (background) => {
      if (Option.isNone(background)) return inner.alert(alert)
      const deliverAndRecord = Effect.all([RetryPolicy, Effect.either(inner.alert(alert))]).pipe(
        Effect.flatMap(([policy, result]) =>
          Effect.flatMap(EpochMillis.now, (at) =>
            Effect.flatMap(
              alertAttemptRecord(policy, alert, result._tag === "Left" ? result.left.detail : null, at),
              (record) => store.recordAttempt(alert.id, record)
            ))
        ),
        Effect.catchAll((error) => Effect.logError("could not record a deferred alert's delivery", error)),
        spanWhenTraced("alert.deferred", { kind: alert.kind })
      )
      return Effect.zipRight(
        background.value.defer(deliverAndRecord),
        Effect.fail(new AlertFailed({ detail: DEFERRED_DETAIL, deferred: true }))
      )
    })
})
