import { OrderStore, RetryPolicy } from "@hookgate/core"
import { Clock, Effect, Metric } from "effect"

/**
 * The store's state as gauges, read from the store when `/metrics` is scraped (not kept
 * in memory: several gateways on one Postgres each report the whole database):
 *
 * - `hookgate_orders{status}`: orders by status (`pending`, `sent`, `failed`, `capped`);
 * - `hookgate_orders_due`: pending orders whose next attempt is due now (counted up to
 *   `DUE_COUNT_LIMIT`): the backlog the sweep has not taken yet;
 * - `hookgate_alerts_undelivered`: stored alerts not delivered (retrying, or given up on);
 * - `hookgate_store_up`: 1 when the store answered this scrape, 0 when it did not (the
 *   other gauges then keep their last values).
 */

/** Due orders are counted by listing them; past this many the gauge says "at least". */
export const DUE_COUNT_LIMIT = 10_000

const orders = Metric.gauge("hookgate_orders", { description: "Orders by status, read from the store at scrape time" })
const due = Metric.gauge("hookgate_orders_due", {
  description: `Pending orders due for an attempt now (counted up to ${DUE_COUNT_LIMIT})`
})
const undelivered = Metric.gauge("hookgate_alerts_undelivered", {
  description: "Stored owner alerts not delivered yet (retrying or given up): read them with `hookgate alerts list`"
})
const storeUp = Metric.gauge("hookgate_store_up", { description: "1 when the store answered the last scrape, else 0" })

const byStatus = {
  pending: Metric.tagged(orders, "status", "pending"),
  sent: Metric.tagged(orders, "status", "sent"),
  failed: Metric.tagged(orders, "status", "failed"),
  capped: Metric.tagged(orders, "status", "capped")
}

/** Sets every store gauge from one read of the store; a store that does not answer sets `hookgate_store_up` to 0. */
export const refreshStoreGauges = Effect.gen(function*() {
  const store = yield* OrderStore
  const policy = yield* RetryPolicy
  const now = yield* Clock.currentTimeMillis
  const [stats, dueKeys] = yield* Effect.all([
    store.stats,
    store.due(now, { limit: DUE_COUNT_LIMIT, maxAttempts: policy.maxAttempts })
  ])
  yield* Effect.all([
    Metric.set(byStatus.pending, stats.orders.pending),
    Metric.set(byStatus.sent, stats.orders.sent),
    Metric.set(byStatus.failed, stats.orders.failed),
    Metric.set(byStatus.capped, stats.orders.capped),
    Metric.set(due, dueKeys.length),
    Metric.set(undelivered, stats.alertsUndelivered),
    Metric.set(storeUp, 1)
  ], { discard: true })
}).pipe(Effect.catchAll(() => Metric.set(storeUp, 0)))
