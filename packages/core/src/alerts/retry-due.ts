import * as EpochMillis from "../kernel/EpochMillis.js"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { RetryPolicy } from "../kernel/retry-policy.js"
import { spanWhenTraced } from "../kernel/spans.js"
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
    const policy = yield* RetryPolicy
    const now = yield* EpochMillis.now
    const claimed = yield* store.claimDue(now, {
      limit: options.limit ?? 100,
      until: EpochMillis.after(now, policy.leaseFor),
      maxAttempts: policy.maxAttempts,
      // One never attempted (or whose attempt went unrecorded) is due a lease after it was stored.
      staleBefore: now - Math.ceil(Duration.toMillis(policy.leaseFor))
    })
    const delivered = yield* Effect.forEach(claimed, attemptAlert, { concurrency: 4 })
    return { attempted: claimed.length, delivered: delivered.filter(Boolean).length } satisfies AlertRetryReport
  }).pipe(spanWhenTraced("alerts.retry"))
