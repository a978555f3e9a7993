import * as EpochMillis from "../kernel/EpochMillis.js"
import * as Effect from "effect/Effect"
import { Alert, type AlertKind } from "./alert.js"
import * as Metrics from "../observability/Metrics.js"
import { spanWhenTraced } from "../kernel/spans.js"
import { Alerter } from "./alerter.js"
import { AlertStore } from "./alert-store.js"
import { RetryPolicy } from "../kernel/retry-policy.js"
import { alertAttemptRecord, deferredAttemptRecord } from "./alert-retry.js"

/** A new alert, created at `now`, not yet attempted. */
export const newAlert = (
  fields: { readonly id: string; readonly kind: AlertKind; readonly orderKey: string | null; readonly message: string },
  now: number
) => new Alert({ ...fields, createdAt: now, deliveredAt: null, deliveryError: null })

/**
 * Attempts an alert that is already stored, and records the attempt's outcome.
 * A failing alerter is recorded on the stored alert, never thrown away or rethrown,
 * with when the sweep attempts it again (`alertAttemptRecord`). Answers whether it was
 * delivered.
 */
export const attemptAlert = (alert: Alert) =>
  Effect.gen(function*() {
    const alerter = yield* Alerter
    const store = yield* AlertStore
    const policy = yield* RetryPolicy
    yield* Metrics.alert(alert.kind)
    const result = yield* Effect.either(alerter.alert(alert))
    const at = yield* EpochMillis.now
    const record = result._tag === "Right"
      ? yield* alertAttemptRecord(policy, alert, null, at)
      : result.left.deferred
      ? yield* deferredAttemptRecord(policy, alert, result.left.detail, at)
      : yield* alertAttemptRecord(policy, alert, result.left.detail, at)
    yield* store.recordAttempt(alert.id, record)
    return result._tag === "Right"
  }).pipe(
    Effect.catchAll((error) => Effect.as(Effect.logError("could not record an alert's delivery", error), false)),
    spanWhenTraced("alert", { kind: alert.kind })
  )

/** Stores an alert (once per id) and attempts it when it was new. */
export const raiseAlert = (alert: Alert) =>
  Effect.gen(function*() {
    const store = yield* AlertStore
    const isNew = yield* store.save(alert)
    if (isNew) yield* attemptAlert(alert)
  }).pipe(Effect.catchAll((error) => Effect.logError("could not store an alert", error)))
