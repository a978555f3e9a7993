import type * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import type { OrderStoreShape, PruneCounts } from "@hookgate/core"
import type { MessageLedgerShape } from "@hookgate/core/queue"
import * as Effect from "effect/Effect"
import type * as Context from "effect/Context"
import type { SqlAtomic } from "./atomic.js"
import { unavailable } from "./unavailable.js"

type Fragment = Statement.Fragment

/**
 * D1 binds at most 100 parameters in one statement: the order keys one prune call deletes
 * travel as bound parameters (with a cutoff beside them), so one call takes at most this many.
 */
export const PRUNE_KEYS_PER_CALL = 90

/**
 * A table whose rows hang off an order by `order_key`, deleted with a pruned order.
 * `keep` selects its rows that stay even then (none: they all go with the order); `alone`
 * selects the rows about no order that go on their own once older than the cutoff, by
 * their `identity` columns. A table added later that holds rows per order goes here.
 */
interface OrderDependent {
  readonly table: string
  readonly counted: keyof Omit<PruneCounts, "orders">
  readonly keep?: (sql: SqlClient.SqlClient) => Fragment
  readonly alone?: {
    readonly identity: ReadonlyArray<string>
    readonly where: (sql: SqlClient.SqlClient, before: number) => Fragment
  }
}

export const ORDER_DEPENDENTS: ReadonlyArray<OrderDependent> = [
  {
    table: "hookgate_receipts",
    counted: "receipts",
    alone: {
      identity: ["provider", "event_id"],
      where: (sql, before) => sql`order_key IS NULL AND last_seen_at < ${before}`
    }
  },
  {
    table: "hookgate_alerts",
    counted: "alerts",
    keep: (sql) => sql`resolved_at IS NULL`,
    alone: {
      identity: ["alert_id"],
      where: (sql, before) => sql`order_key IS NULL AND resolved_at IS NOT NULL AND created_at < ${before}`
    }
  },
  { table: "hookgate_attempts", counted: "attempts" }
]

/**
 * A finished order no open work needs, created before `before`: sent, failed or capped, no
 * lease, and no open alert about it (the operator still needs the order to act on it).
 * Unqualified columns are the nearest `hookgate_orders` row's.
 */
const finishedBefore = (sql: SqlClient.SqlClient, before: number) =>
  sql`status IN ('sent', 'failed', 'capped') AND lease_token IS NULL AND created_at < ${before}
  AND NOT EXISTS (SELECT 1 FROM hookgate_alerts open_alert
    WHERE open_alert.order_key = hookgate_orders.order_key AND open_alert.resolved_at IS NULL)`

const count = (rows: ReadonlyArray<Record<string, unknown>> | undefined) => (rows ?? []).length
const zero: PruneCounts = { orders: 0, receipts: 0, alerts: 0, attempts: 0 }

/**
 * `OrderStore.prune` and `prunable` in SQL. A call reads at most `limit` finished orders'
 * keys (oldest first, on the `created_at` index), then deletes them and their dependents in
 * one atomic step: the order's delete checks again that it is finished (a requeue may have
 * come between), and a dependent goes only if its order did. Rows about no order go by a
 * bounded subquery. Each statement is short, so a long prune never holds SQLite's writer for long.
 */
export const makeSqlPrune = (sql: SqlClient.SqlClient, atomic: Context.Tag.Service<typeof SqlAtomic>): Pick<OrderStoreShape, "prune" | "prunable"> => {
  const orderKeys = (keys: ReadonlyArray<string>) => sql.in("order_key", keys)
  const withOrders = (before: number, limit: number) =>
    Effect.gen(function*() {
      const selected = yield* sql<{ order_key: string }>`SELECT order_key FROM hookgate_orders
WHERE ${finishedBefore(sql, before)} ORDER BY created_at LIMIT ${limit}`
      const keys = selected.map((row) => row.order_key)
      if (keys.length === 0) return zero
      const results = yield* atomic.run([
        sql`DELETE FROM hookgate_orders WHERE ${orderKeys(keys)} AND ${finishedBefore(sql, before)} RETURNING order_key`,
        ...ORDER_DEPENDENTS.map((dependent) =>
          sql`DELETE FROM ${sql(dependent.table)} WHERE ${orderKeys(keys)}
  ${dependent.keep === undefined ? sql`` : sql`AND NOT (${dependent.keep(sql)})`}
  AND NOT EXISTS (SELECT 1 FROM hookgate_orders WHERE hookgate_orders.order_key = ${sql(dependent.table)}.order_key)
RETURNING order_key`
        )
      ])
      const counts: Record<string, number> = { orders: count(results[0]) }
      ORDER_DEPENDENTS.forEach((dependent, i) => counts[dependent.counted] = count(results[i + 1]))
      return counts as unknown as PruneCounts
    })

  const alone = (before: number, limit: number) =>
    Effect.forEach(ORDER_DEPENDENTS, (dependent) => {
      if (dependent.alone === undefined) return Effect.succeed([dependent.counted, 0] as const)
      const identity = sql.unsafe(dependent.alone.identity.join(", "))
      const where = dependent.alone.where(sql, before)
      return Effect.map(
        sql`DELETE FROM ${sql(dependent.table)} WHERE ${where} AND (${identity}) IN
  (SELECT ${identity} FROM ${sql(dependent.table)} WHERE ${where} LIMIT ${limit})
RETURNING 1 AS deleted`,
        (rows) => [dependent.counted, rows.length] as const
      )
    })

  return {
    prune: (before, { limit }) =>
      Effect.gen(function*() {
        const n = Math.max(1, Math.min(limit, PRUNE_KEYS_PER_CALL))
        const counts = yield* withOrders(before, n)
        const others = yield* alone(before, n)
        const total: Record<string, number> = { ...counts }
        for (const [counted, deleted] of others) total[counted] = (total[counted] ?? 0) + deleted
        return total as unknown as PruneCounts
      }).pipe(unavailable("prune")),

    prunable: (before) =>
      Effect.gen(function*() {
        const finished = sql`SELECT order_key FROM hookgate_orders WHERE ${finishedBefore(sql, before)}`
        const [orders] = yield* sql<{ n: number | string }>`SELECT COUNT(*) AS n FROM (${finished}) finished`
        const total: Record<string, number> = { orders: Number(orders?.n ?? 0) }
        for (const dependent of ORDER_DEPENDENTS) {
          const withOrder = sql`order_key IN (${finished})
  ${dependent.keep === undefined ? sql`` : sql`AND NOT (${dependent.keep(sql)})`}`
          const [row] = yield* sql<{ n: number | string }>`SELECT COUNT(*) AS n FROM ${sql(dependent.table)}
WHERE (${withOrder})${dependent.alone === undefined ? sql`` : sql` OR (${dependent.alone.where(sql, before)})`}`
          total[dependent.counted] = Number(row?.n ?? 0)
        }
        return total as unknown as PruneCounts
      }).pipe(unavailable("prunable"))
  }
}

/** `MessageLedger.prune` and `prunable` in SQL: completed keys, by a bounded subquery. */
export const makeSqlMessagePrune = (sql: SqlClient.SqlClient): Pick<MessageLedgerShape, "prune" | "prunable"> => {
  const completedBefore = (before: number) => sql`status = 'completed' AND completed_at < ${before}`
  return {
    prune: (before, { limit }) =>
      sql`DELETE FROM hookgate_messages WHERE ${completedBefore(before)} AND message_key IN
  (SELECT message_key FROM hookgate_messages WHERE ${completedBefore(before)} LIMIT ${Math.max(1, limit)})
RETURNING message_key`.pipe(Effect.map((rows) => rows.length), unavailable("message.prune")),
    prunable: (before) =>
      sql<{ n: number | string }>`SELECT COUNT(*) AS n FROM hookgate_messages WHERE ${completedBefore(before)}`.pipe(
        Effect.map((rows) => Number(rows[0]?.n ?? 0)),
        unavailable("message.prunable")
      )
  }
}
