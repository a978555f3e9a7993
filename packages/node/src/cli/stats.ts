import { Command } from "@effect/cli"
import { OrderStore, RetryPolicy } from "@hookgate/core"
import { Clock, Console, Effect } from "effect"
import { GatewayConfig } from "../config/gateway-config.js"
import { DUE_COUNT_LIMIT } from "../http/store-gauges.js"
import { withStore } from "./context.js"
import { table } from "./print.js"

/** `hookgate stats`: what `GET /admin/stats` and the `/metrics` gauges say, read from the database. */
export const statsCommand = Command.make("stats", {}, () =>
  withStore("stats")(Effect.gen(function*() {
    const store = yield* OrderStore
    const policy = yield* RetryPolicy.make((yield* GatewayConfig).retry)
    const stats = yield* store.stats
    const due = yield* store.due(yield* Clock.currentTimeMillis, { limit: DUE_COUNT_LIMIT, maxAttempts: policy.maxAttempts })
    yield* Console.log(table(["", "count"], [
      ["orders pending", String(stats.orders.pending)],
      ["  due now", due.length >= DUE_COUNT_LIMIT ? `${DUE_COUNT_LIMIT}+` : String(due.length)],
      ["orders sent", String(stats.orders.sent)],
      ["orders failed", String(stats.orders.failed)],
      ["orders capped", String(stats.orders.capped)],
      ["alerts", String(stats.alerts)],
      ["  undelivered", String(stats.alertsUndelivered)],
      ["duplicates prevented", String(stats.duplicatesPrevented)],
      ["possible duplicates", String(stats.possibleDuplicates)],
      ["leases lost", String(stats.leasesLost)],
      ["events received", String(stats.receipts)]
    ]))
  }))).pipe(Command.withDescription("orders by status, due orders, undelivered alerts and the duplicate counters"))
