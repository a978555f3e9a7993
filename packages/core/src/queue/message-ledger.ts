import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { LeaseTerms } from "../kernel/lease-protocol.js"
import type { MessageRecord } from "./message.js"
import type { StoreUnavailable } from "../kernel/store-errors.js"

/** What a delivery of a message found when it tried to take the message's lease. */
export type MessageAcquire =
  /** This delivery holds the lease and must run the effect; `attempts` failed runs came before. */
  | { readonly _tag: "Leased"; readonly token: string; readonly attempts: number }
  /** The effect already ran and was recorded complete. */
  | { readonly _tag: "Completed"; readonly completedAt: number }
  /** Another delivery holds a fresh lease until `until`. */
  | { readonly _tag: "InProgress"; readonly until: number }

/**
 * The lease-and-complete protocol of orders, keyed by a stable message key:
 * one row per key, taken by an upsert that only succeeds while the key is
 * pending and its lease is free or expired.
 */
export interface MessageLedgerShape {
  /**
   * Takes the lease of `key` (creating its row on first sight), or reports
   * why not, under the given terms (token, time, end). A delivery that does not
   * get the lease is counted on the row.
   */
  readonly acquire: (key: string, terms: LeaseTerms) => Effect.Effect<MessageAcquire, StoreUnavailable>
  /** Marks the key completed, if `token` still holds the lease. */
  readonly complete: (key: string, token: string, options: { readonly now: number }) => Effect.Effect<boolean, StoreUnavailable>
  /** Records a failed run and frees the lease, if `token` still holds it. The key stays pending. */
  readonly release: (
    key: string,
    token: string,
    failure: { readonly now: number; readonly error: string }
  ) => Effect.Effect<boolean, StoreUnavailable>
  readonly get: (key: string) => Effect.Effect<Option.Option<MessageRecord>, StoreUnavailable>
  /**
   * Deletes at most `limit` completed keys completed before `before` (epoch ms), answering
   * how many; a pending key (leased or not) is never deleted. A message redelivered after its
   * key is gone runs again: keep keys longer than the queue redelivers.
   */
  readonly prune: (before: number, options: { readonly limit: number }) => Effect.Effect<number, StoreUnavailable>
  /** How many keys `prune` calls repeated until they delete nothing would delete; deletes nothing. */
  readonly prunable: (before: number) => Effect.Effect<number, StoreUnavailable>
}

/** The ledger `Consumer.once` leases message keys on (in-memory, SQLite, D1). */
export class MessageLedger extends Context.Tag("@hookgate/core/MessageLedger")<MessageLedger, MessageLedgerShape>() {}
