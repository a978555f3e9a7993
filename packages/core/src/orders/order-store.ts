import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { EventReceipt, NewOrder, Order, OrderStatus, ReceiptOutcome, StoreStats } from "./order.js"
import type { StoreUnavailable } from "../kernel/store-errors.js"
import type { LeaseTerms } from "../kernel/lease-protocol.js"
import type { Leased } from "./lease.js"
import type { Attempt, AttemptNote } from "./attempt.js"

/**
 * The outcome of the first write for an order. A new order is stored already
 * leased to the caller (one statement: store and lease together).
 */
export type PutResult =
  | { readonly _tag: "Stored"; readonly leased: Leased }
  | { readonly _tag: "AlreadyStored"; readonly order: Order }
  | { readonly _tag: "Conflict"; readonly existing: Order }

/** What `OrderStore.list` selects. */
export interface OrderListOptions {
  readonly status?: OrderStatus | undefined
  readonly provider?: string | undefined
  readonly search?: string | undefined
  readonly after?: { readonly createdAt: number; readonly key: string } | undefined
  readonly limit: number
}

/**
 * What `OrderStore.prune` deleted in one call, or what `prunable` counts: finished orders,
 * receipts (an order's, and those of events that made no order), resolved alerts, and the
 * pruned orders' attempt history.
 */
export interface PruneCounts {
  readonly orders: number
  readonly receipts: number
  readonly alerts: number
  readonly attempts: number
}

/** The order ledger: orders, their receipts and counters. Alerts have their own port, `AlertStore`. */
export interface OrderStoreShape {
  /** Stores a new order leased under `lease` (its token, until `until`), or reports the order already under that key. */
  readonly put: (order: NewOrder, lease: LeaseTerms) => Effect.Effect<PutResult, StoreUnavailable>
  readonly get: (key: string) => Effect.Effect<Option.Option<Order>, StoreUnavailable>
  /** Keys of pending orders whose next attempt is due, lease free or expired, below the cap. */
  readonly due: (
    now: number,
    options: { readonly limit: number; readonly maxAttempts: number }
  ) => Effect.Effect<ReadonlyArray<string>, StoreUnavailable>
  /**
   * The newest orders first (`createdAt` descending, then key), up to `limit`: only those of
   * `status` and of `provider` when given; `search` matches an order key or an email exactly
   * (an email in any case); `after` continues past a row already shown (a page's last one).
   * The SQL stores answer from indexes (status, provider, email: each with `created_at`).
   */
  readonly list: (options: OrderListOptions) => Effect.Effect<ReadonlyArray<Order>, StoreUnavailable>
  /** Keeps a verified event that did not create an order; repeats of one event id are counted. */
  readonly recordReceipt: (receipt: EventReceipt) => Effect.Effect<void, StoreUnavailable>
  /** Newest first; by order key, and/or only the given outcomes (`unfulfillable`, `malformed`, …). */
  readonly receipts: (
    options: {
      readonly orderKey?: string | undefined
      readonly outcomes?: ReadonlyArray<ReceiptOutcome> | undefined
      readonly limit: number
    }
  ) => Effect.Effect<ReadonlyArray<EventReceipt & { readonly deliveries: number }>, StoreUnavailable>
  /** Counts a replay that was answered without sending. */
  readonly notePrevented: (key: string) => Effect.Effect<void, StoreUnavailable>
  /**
   * Counts a sender that finished after losing its lease. Touches no lease state. With
   * `lost`, also keeps that attempt in the order's history (outcome `lease_lost`), once per token.
   */
  readonly noteLeaseLost: (
    key: string,
    lost?: { readonly token: string; readonly now: number; readonly attempt: AttemptNote }
  ) => Effect.Effect<void, StoreUnavailable>
  /**
   * The order's attempt history, newest first (by the time it was recorded, then by number), up
   * to `limit`: one row per attempt whose end
   * was recorded (`Lease.complete`, `Lease.release`, `noteLeaseLost`), written in the same
   * atomic step as the order's state. Orders stored by a release before the history have none.
   */
  readonly attempts: (key: string, options: { readonly limit: number }) => Effect.Effect<ReadonlyArray<Attempt>, StoreUnavailable>
  /**
   * Puts a capped or failed order back in the queue (operator action): pending,
   * attempts reset, due now (its last error and history are kept). Answers the
   * requeued order, or None when there is no capped or failed order under the key.
   */
  readonly requeue: (key: string, now: number) => Effect.Effect<Option.Option<Order>, StoreUnavailable>
  /**
   * Deletes one bounded batch of what no open order needs, from before `before` (epoch ms):
   * finished orders (sent, failed or capped; no lease; no open alert) created before it, with
   * the rows that hang off them (their receipts and resolved alerts); receipts of events that
   * made no order, last seen before it; resolved alerts about no order, raised before it.
   * Never a pending order, an order of a status this release does not know, or an open alert.
   * At most `limit` orders, and `limit` rows of each other kind, per call (the SQL stores
   * also keep each statement under D1's 100 bound parameters); all zero: nothing is left.
   */
  readonly prune: (before: number, options: { readonly limit: number }) => Effect.Effect<PruneCounts, StoreUnavailable>
  /** What `prune` calls repeated until they delete nothing would delete, in all; deletes nothing. */
  readonly prunable: (before: number) => Effect.Effect<PruneCounts, StoreUnavailable>
  /** Counts of orders by status, the duplicate and lease counters, and the stored receipts and alerts. */
  readonly stats: Effect.Effect<StoreStats, StoreUnavailable>
}

/** Where orders are kept (in-memory for tests, SQLite, D1, Postgres). */
export class OrderStore extends Context.Tag("@hookgate/core/OrderStore")<OrderStore, OrderStoreShape>() {}
