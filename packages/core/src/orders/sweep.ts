import { Clock, Effect, Schema } from "effect"
import { OrderStore } from "./order-store.js"
import { RetryPolicy } from "./retry-policy.js"
import { deliver } from "./deliver.js"
import { step } from "../internal/spans.js"

export class SweepReport extends Schema.Class<SweepReport>("SweepReport")({
  /** Due orders found. */
  scanned: Schema.Int,
  sent: Schema.Int,
  /** Attempts that failed: recorded for a later retry, or rejected for good. */
  failed: Schema.Int,
  /** Orders that reached the cap in this sweep. */
  capped: Schema.Int,
  /** Orders another sender leased first, or that could not be read. */
  skipped: Schema.Int
}) {}

export interface SweepOptions {
  /** At most this many due orders per sweep (default 100). */
  readonly limit?: number
  /** Orders sent at once (default 4). */
  readonly concurrency?: number
}

/** One pass of the retry sweep: every due order gets one delivery attempt under a lease. */
export const sweep = (options: SweepOptions = {}) =>
  Effect.gen(function*() {
    const store = yield* OrderStore
    const policy = yield* RetryPolicy
    const now = yield* Clock.currentTimeMillis
    const keys = yield* store.due(now, { limit: options.limit ?? 100, maxAttempts: policy.maxAttempts })
    const outcomes = yield* Effect.forEach(
      keys,
      (key) =>
        deliver(key, { dueOnly: true }).pipe(
          Effect.tapError((error) => Effect.logError("sweep could not deliver an order", error)),
          Effect.either
        ),
      { concurrency: options.concurrency ?? 4 }
    )
    const count = (tags: ReadonlyArray<string>) =>
      outcomes.filter((result) => result._tag === "Right" && tags.includes(result.right._tag)).length
    return new SweepReport({
      scanned: keys.length,
      sent: count(["Sent"]),
      failed: count(["Retry", "Failed"]),
      capped: count(["Capped"]),
      skipped: keys.length - count(["Sent", "Retry", "Failed", "Capped"])
    })
  }).pipe(step("sweep"))

/** Sweeps forever on the policy's cadence; a failed sweep is logged and the next one runs. */
export const runSweeper = (options: SweepOptions = {}) =>
  Effect.flatMap(RetryPolicy, (policy) =>
    sweep(options).pipe(
      Effect.tap((report) => Effect.logDebug("sweep", report)),
      Effect.catchAll((error) => Effect.logError("sweep failed", error)),
      Effect.repeat(policy.sweepEvery),
      Effect.asVoid
    ))
