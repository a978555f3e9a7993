import { Clock, Effect } from "effect"
import { Alert, type AlertKind } from "./alert.js"
import { Metrics } from "../observability/metrics.js"
import { step } from "../internal/spans.js"
import { Alerter } from "./alerter.js"
import { AlertStore } from "./alert-store.js"

/** A new alert, created at `now`, not yet attempted. */
export const makeAlert = (
  fields: { readonly id: string; readonly kind: AlertKind; readonly orderKey: string | null; readonly message: string },
  now: number
) => new Alert({ ...fields, createdAt: now, deliveredAt: null, deliveryError: null })

/**
 * Attempts an alert that is already stored, and records the attempt's outcome.
 * A failing alerter is recorded on the stored alert, never thrown away or rethrown.
 */
export const attemptAlert = (alert: Alert) =>
  Effect.gen(function*() {
    const alerter = yield* Alerter
    const store = yield* AlertStore
    yield* Metrics.alert(alert.kind)
    const result = yield* Effect.either(alerter.alert(alert))
    const at = yield* Clock.currentTimeMillis
    yield* store.recordAttempt(alert.id, {
      at,
      error: result._tag === "Left" ? result.left.detail : null
    })
  }).pipe(
    Effect.catchAll((error) => Effect.logError("could not record an alert's delivery", error)),
    step("alert", { kind: alert.kind })
  )

/** Stores an alert (once per id) and attempts it when it was new. */
export const raiseAlert = (alert: Alert) =>
  Effect.gen(function*() {
    const store = yield* AlertStore
    const isNew = yield* store.save(alert)
    if (isNew) yield* attemptAlert(alert)
  }).pipe(Effect.catchAll((error) => Effect.logError("could not store an alert", error)))
