import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { ReconcileError } from "../providers/reconcile.js"
import { ReconcileCursors, type ReconcilePosition } from "./reconcile-cursors.js"

/** What every provider's run shares: its options, its window, and its summary. */

/** How far back a provider's first run looks when no `since` is given: 72 hours. */
export const DEFAULT_LOOKBACK: Duration.Duration = Duration.hours(72)
/** How far before its cursor a run reads again, for objects the provider made visible late. */
export const CURSOR_OVERLAP: Duration.Duration = Duration.minutes(10)

/** The options of `reconcile`. */
export interface ReconcileOptions {
  /** Look back this far from now, whatever the cursor says. Default: from the cursor less the overlap, else 72 h. */
  readonly since?: Duration.DurationInput | undefined
  /** Count what a run would do, storing and sending nothing and leaving the cursors. */
  readonly dryRun?: boolean | undefined
  /** Only these providers (by name); default every mounted provider that can reconcile. */
  readonly providers?: ReadonlyArray<string> | undefined
  /** How many pulled orders are stored and sent at once. Default 4. */
  readonly concurrency?: number | undefined
}

/** One provider's run. */
export class ProviderReconcileSummary extends Schema.Class<ProviderReconcileSummary>("ProviderReconcileSummary")({
  provider: Schema.String,
  /** The start of the window read (epoch ms): the position's `created` when the run continued an unfinished one. */
  since: Schema.Number,
  /** Objects the provider listed. */
  seen: Schema.Int,
  /** Paid objects whose order was already stored (by a webhook or an earlier run). */
  known: Schema.Int,
  /** Paid objects this run stored (and sent): no webhook had brought them. With `dryRun`, those it would store. */
  new: Schema.Int,
  /** Listed objects that do not pay (a session still unpaid). */
  unpaid: Schema.Int,
  /** Paying objects that could not be decoded into an order (logged). */
  unfulfillable: Schema.Int,
  /** Paying objects the store could not take this time (logged; the cursor and the position then stay before the first, so the next run reads them again). */
  failed: Schema.optionalWith(Schema.Int, { default: () => 0 }),
  /**
   * Paid orders the store does not know and the provider's API cannot rebuild (a
   * detect-only provider, Creem): nothing is stored or sent for them; the owner is told.
   */
  unsendable: Schema.optionalWith(Schema.Int, { default: () => 0 }),
  /** Of those, the ones this run's owner alert named (no earlier run had). With `dryRun`, those it would name. */
  alerted: Schema.optionalWith(Schema.Int, { default: () => 0 }),
  /** The cursor after the run (epoch ms), or null when none is kept. */
  cursor: Schema.NullOr(Schema.Number),
  /** Why the run stopped early (its cursor then stays where it was), or null. */
  error: Schema.NullOr(Schema.Struct({
    reason: Schema.String,
    detail: Schema.String,
    setting: Schema.NullOr(Schema.String),
    requestId: Schema.NullOr(Schema.String)
  }))
}) {}

/** A listing's failure as a summary shows it (never the key: the setting that holds it). */
export const errorOf = (error: ReconcileError) => ({
  reason: error.reason,
  detail: error.detail,
  setting: error.setting ?? null,
  requestId: error.requestId ?? null
})

/** Logs that a provider's run stopped early. */
export const logStopped = (provider: string, error: ReturnType<typeof errorOf>) =>
  Effect.logError("a reconciliation run stopped early; its cursor stays where it was").pipe(
    Effect.annotateLogs({ provider, ...error })
  )

/**
 * Where a run starts: `since` when given; else where an unfinished run got to (its
 * objects up to that position are skipped); else the cursor less the overlap; else
 * the default look-back. Only a run from the cursor (or from a position) keeps a
 * position: one from a `since` of its own may have left a gap before its window.
 */
export const windowOf = (provider: string, options: ReconcileOptions, now: number) =>
  Effect.gen(function*() {
    const cursors = yield* ReconcileCursors
    if (options.since !== undefined) {
      return { since: now - Duration.toMillis(Duration.decode(options.since)), after: Option.none<ReconcilePosition>(), tracks: false }
    }
    const after = yield* cursors.progress(provider)
    if (Option.isSome(after)) return { since: after.value.created, after, tracks: true }
    const cursor = yield* cursors.get(provider)
    const since = Option.match(cursor, {
      onNone: () => now - Duration.toMillis(DEFAULT_LOOKBACK),
      onSome: (at) => at - Duration.toMillis(CURSOR_OVERLAP)
    })
    return { since, after, tracks: true }
  })

