import { OrderStore, type PruneCounts, type StoreUnavailable } from "@hookgate/core"
import { MessageLedger } from "@hookgate/core/queue"
import { Duration, Effect } from "effect"

/** What a prune deleted (or, as a dry run, would delete). */
export interface PruneReport extends PruneCounts {
  /** Completed queue message keys (`Consumer.once`'s ledger). */
  readonly messages: number
  /** How many bounded store calls it took. */
  readonly batches: number
}

/**
 * The shortest retention `hookgate prune` accepts: a provider retries an event for days
 * (Stripe for up to 3), and a retry of a pruned order's event would store it anew and
 * send its email again.
 */
export const MIN_RETENTION = Duration.days(30)

/** Orders (and queue keys) deleted per store call: short statements, the SQLite writer free between them. */
export const PRUNE_BATCH = 50

/** Calls `batch` until it deletes nothing, yielding between calls; answers the sum and the number of calls. */
const drain = <A>(batch: Effect.Effect<A, StoreUnavailable>, add: (total: A, next: A) => A, empty: A) =>
  Effect.iterate({ total: empty, calls: 0, done: false }, {
    while: (state) => !state.done,
    body: (state) =>
      Effect.map(Effect.zipLeft(batch, Effect.yieldNow()), (next) => ({
        total: add(state.total, next),
        calls: state.calls + 1,
        done: Object.values(next as Record<string, number>).every((n) => n === 0)
      }))
  })

const addCounts = (a: PruneCounts, b: PruneCounts): PruneCounts => ({
  orders: a.orders + b.orders,
  receipts: a.receipts + b.receipts,
  alerts: a.alerts + b.alerts,
  attempts: a.attempts + b.attempts
})

/**
 * Deletes what no open order needs from before `before` (epoch ms), in bounded batches:
 * finished orders with their receipts, resolved alerts and attempt history (`OrderStore.prune`), receipts and
 * resolved alerts about no order, completed queue message keys. With `dryRun`, counts them.
 */
export const prune = (
  before: number,
  options: { readonly dryRun: boolean; readonly batchSize?: number }
): Effect.Effect<PruneReport, StoreUnavailable, OrderStore | MessageLedger> =>
  Effect.gen(function*() {
    const store = yield* OrderStore
    const ledger = yield* MessageLedger
    if (options.dryRun) {
      const counts = yield* store.prunable(before)
      return { ...counts, messages: yield* ledger.prunable(before), batches: 0 }
    }
    const limit = options.batchSize ?? PRUNE_BATCH
    const orders = yield* drain(store.prune(before, { limit }), addCounts, { orders: 0, receipts: 0, alerts: 0, attempts: 0 })
    const messages = yield* drain(
      Effect.map(ledger.prune(before, { limit }), (messages) => ({ messages })),
      (a, b) => ({ messages: a.messages + b.messages }),
      { messages: 0 }
    )
    return { ...orders.total, messages: messages.total.messages, batches: orders.calls + messages.calls }
  })
