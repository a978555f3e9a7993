import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { step } from "../internal/spans.js"
import { alertRetryPolicy } from "./alert-retry.js"
import { AlertStore } from "./alert-store.js"
import { attemptAlert } from "./raise.js"

/** What one pass over the due alerts did. */
export interface AlertRetryReport {
  /** Stored alerts attempted by the sweep (a failed delivery again, or one never recorded). */
  readonly attempted: number
  /** Of those, delivered this time. */
  readonly delivered: number
}

/**
 * Attempts the stored alerts that are due (`AlertStore.claimDue`, claimed for the
 * policy's lease so two sweeps do not both attempt one): those whose delivery failed
 * and whose backoff has passed, and those stored a lease ago or more with no recorded
 * attempt (the process died, or the store failed, between storing and recording).
 * Records each outcome. Run by every sweep.
 */
export const retryDueAlerts = (options: { readonly limit?: number } = {}) =>
  Effect.gen(function*() {
    const store = yield* AlertStore
    const policy = yield* alertRetryPolicy
    const now = yield* Clock.currentTimeMillis
    const lease = Duration.toMillis(policy.leaseFor)
    const claimed = yield* store.claimDue(now, {
      limit: options.limit ?? 100,
      until: Math.ceil(now + lease),
      maxAttempts: policy.maxAttempts,
      // One never attempted (or whose attempt went unrecorded) is due a lease after it was stored.
      staleBefore: now - lease
    })
    const delivered = yield* Effect.forEach(claimed, attemptAlert, { concurrency: 4 })
    return { attempted: claimed.length, delivered: delivered.filter(Boolean).length } satisfies AlertRetryReport
  }).pipe(step("alerts.retry"))
