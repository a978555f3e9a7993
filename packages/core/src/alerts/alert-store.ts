import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { StoreUnavailable } from "../kernel/store-errors.js"
import type { Alert } from "./alert.js"

/** The alert ledger: every alert is stored once (by id) before it is attempted. */
export interface AlertStoreShape {
  /** Stores an alert unless one with its id exists; answers whether it was new. */
  readonly save: (alert: Alert) => Effect.Effect<boolean, StoreUnavailable>
  /**
   * Records the outcome of an attempt: delivered at `at`, or the delivery error; the
   * attempts made so far and when to try again (null: not again).
   */
  readonly recordAttempt: (
    id: string,
    result: {
      readonly at: number
      readonly error: string | null
      readonly attempts: number
      readonly nextAttemptAt: number | null
    }
  ) => Effect.Effect<void, StoreUnavailable>
  /**
   * Claims up to `limit` due alerts (earliest first), moving their next attempt to
   * `until` in the same step, so a second sweep running at once does not attempt them
   * too. Answers them as claimed. An alert is due from the moment it is stored until
   * its delivery is recorded, whatever wrote it: undelivered, fewer than `maxAttempts`
   * attempts, and either its next attempt is at or before `now`, or it has none
   * recorded (saved and not attempted yet, an attempt whose outcome was never
   * recorded, a row of a release that kept no next attempt) and was created at or
   * before `staleBefore`, so that the attempt its raiser is making is not doubled.
   */
  readonly claimDue: (
    now: number,
    options: {
      readonly limit: number
      readonly until: number
      readonly maxAttempts: number
      readonly staleBefore: number
    }
  ) => Effect.Effect<ReadonlyArray<Alert>, StoreUnavailable>
  /**
   * The newest alerts first, up to `limit`: only the `open` (unresolved) or `resolved` ones
   * when `state` is given, only an order's when `orderKey` is.
   */
  readonly list: (
    options: {
      readonly limit: number
      readonly state?: "open" | "resolved" | undefined
      readonly orderKey?: string | undefined
    }
  ) => Effect.Effect<ReadonlyArray<Alert>, StoreUnavailable>
  /**
   * An operator's resolution: marks an open alert resolved at `at` with a note. Answers
   * false when there is no open alert under the id (unknown, or resolved already).
   */
  readonly resolve: (
    id: string,
    resolution: { readonly at: number; readonly note: string }
  ) => Effect.Effect<boolean, StoreUnavailable>
}

/**
 * Where alerts are kept. Its own port, so campaigns, queue dead letters and the
 * Workers alerter need no order store; the SQL stores provide it on the same
 * database as the orders (an order capped or failed stores its alert in the
 * same atomic step as the release, through `Lease.release`).
 */
export class AlertStore extends Context.Tag("@hookgate/core/AlertStore")<AlertStore, AlertStoreShape>() {}
