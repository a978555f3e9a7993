import * as EpochMillis from "../kernel/EpochMillis.js"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { OrderStore } from "./order-store.js"
import { RetryPolicy } from "../kernel/retry-policy.js"
import { deliver } from "./deliver.js"
import { spanWhenTraced } from "../kernel/spans.js"
import { MailerCircuit } from "../mail/circuit.js"
import { retryDueAlerts } from "../alerts/retry-due.js"
import { recordRun } from "./run-log.js"

/** What one sweep did (`POST /admin/sweep` answers it). */
export class SweepReport extends Schema.Class<SweepReport>("SweepReport")({
  /** Due orders found. */
  scanned: Schema.Int,
  sent: Schema.Int,
  /** Attempts that failed: recorded for a later retry, or rejected for good. */
  failed: Schema.Int,
  /** Orders that reached the cap in this sweep. */
  capped: Schema.Int,
  /** Orders held, not counted, because the mailer is misconfigured (`MailerCircuit` open). */
  held: Schema.Int,
  /** Orders another sender leased first, or that could not be read. */
  skipped: Schema.Int,
  /** Stored alerts whose failed delivery was attempted again (their backoff had passed). */
  alertsAttempted: Schema.Int,
  /** Of those, delivered this time. */
  alertsDelivered: Schema.Int
}) {}

/** Bounds of one sweep. */
export interface SweepOptions {
  /** Due orders read per page (default 100). */
  readonly limit?: number
  /** Orders sent at once (default 8). */
  readonly concurrency?: number
  /**
   * How long one sweep may keep taking pages of due orders (default 5 minutes).
   * A sweep drains: it reads page after page until no order is due or the budget
   * is spent, so a backlog after an outage recovers in one run, not 100 per run.
   */
  readonly budget?: Duration.DurationInput
}

type Tally = {
  readonly scanned: number
  readonly sent: number
  readonly failed: number
  readonly capped: number
  readonly held: number
}

/**
 * One run of the retry sweep: every due order gets one delivery attempt under a lease;
 * then every stored alert whose delivery failed and is due again gets one more attempt.
 * Its report is kept in the `RunLog` as the last sweep.
 */
export const sweep = (options: SweepOptions = {}) =>
  Effect.gen(function*() {
    const store = yield* OrderStore
    const policy = yield* RetryPolicy
    const limit = options.limit ?? 100
    const started = yield* EpochMillis.now
    const deadline = started + Duration.toMillis(options.budget ?? "5 minutes")
    // An order skipped (another sender holds it), that could not be read, or whose retry is
    // already due again stays due: it is passed over for the rest of this run, so each
    // order gets at most one attempt per run. Every other tried order is no longer due.
    const passedOver = new Set<string>()
    const circuit = yield* MailerCircuit
    let tally: Tally = { scanned: 0, sent: 0, failed: 0, capped: 0, held: 0 }
    while (true) {
      const now = yield* EpochMillis.now
      // A misconfigured mailer: nothing to try until the breaker's next probe.
      if (now >= deadline || (yield* circuit.holding)) break
      const requested = limit + passedOver.size
      const page = yield* store.due(now, { limit: requested, maxAttempts: policy.maxAttempts })
      const keys = page.filter((key) => !passedOver.has(key)).slice(0, limit)
      if (keys.length === 0) break
      const outcomes = yield* Effect.forEach(
        keys,
        (key) =>
          deliver(key, { dueOnly: true }).pipe(
            Effect.tapError((error) => Effect.logError("sweep could not deliver an order", error)),
            Effect.either
          ),
        { concurrency: options.concurrency ?? 8 }
      )
      outcomes.forEach((result, i) => {
        const stillDue = result._tag === "Left" || result.right._tag === "Skipped" ||
          result.right._tag === "InProgress" || (result.right._tag === "Retry" && result.right.nextAttemptAt <= now)
        if (stillDue) {
          passedOver.add(keys[i]!)
        }
      })
      const count = (tags: ReadonlyArray<string>) =>
        outcomes.filter((result) => result._tag === "Right" && tags.includes(result.right._tag)).length
      tally = {
        scanned: tally.scanned + keys.length,
        sent: tally.sent + count(["Sent"]),
        failed: tally.failed + count(["Retry", "Failed"]),
        capped: tally.capped + count(["Capped"]),
        held: tally.held + count(["Held"])
      }
      if (page.length < requested) break
    }
    // After the orders, so an alert raised by an order capped in this sweep is not attempted twice in it.
    const alerts = yield* retryDueAlerts({ limit })
    const report = new SweepReport({
      ...tally,
      skipped: tally.scanned - tally.sent - tally.failed - tally.capped - tally.held,
      alertsAttempted: alerts.attempted,
      alertsDelivered: alerts.delivered
    })
    // Kept as the last sweep (the console's overview), whoever ran it: the sweeper, the CLI, the cron.
    yield* recordRun("sweep", started, SweepReport, report)
    return report
  }).pipe(spanWhenTraced("sweep"))

/** Sweeps forever on the policy's cadence; a failed sweep is logged and the next one runs. */
export const runSweeper = (options: SweepOptions = {}) =>
  Effect.flatMap(RetryPolicy, (policy) =>
    sweep(options).pipe(
      Effect.tap((report) => Effect.annotateLogs(Effect.logDebug("sweep"), { ...report })),
      Effect.catchAll((error) => Effect.logError("sweep failed", error)),
      Effect.repeat(policy.sweepEvery),
      Effect.asVoid
    ))
