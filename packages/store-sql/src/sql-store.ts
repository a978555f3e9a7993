import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import {
  Lease,
  type LeaseShape,
  type NewOrder,
  newLeasedOrder,
  OrderStore,
  type OrderStoreShape,
  ReconcileCursors,
  RunLog
} from "@hookgate/core"
import { AlertStore } from "@hookgate/core/alerts"
import { CampaignStore } from "@hookgate/core/campaigns"
import { DeadLetterStore, MessageLedger } from "@hookgate/core/queue"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { SqlAtomic } from "./atomic.js"
import { compiled, DirectStatements } from "./compiled.js"
import { decodeAttempt, decodeOrder, decodeReceipt, StatsRow } from "./rows.js"
import { insertLostAttempt, recordedStep } from "./sql-attempts.js"
import { insertReleaseAlert, makeSqlAlertStore } from "./sql-alerts.js"
import { makeSqlCampaignStore } from "./sql-campaigns.js"
import { makeSqlReconcileCursors } from "./sql-cursors.js"
import { makeSqlPrune } from "./sql-prune.js"
import { makeSqlRunLog } from "./sql-runs.js"
import { makeSqlDeadLetters, makeSqlMessageLedger } from "./sql-messages.js"
import { unavailable } from "./unavailable.js"

/**
 * The one SQL implementation of `OrderStore` and `Lease`, on `@effect/sql`.
 * Every protocol step is one conditional statement whose RETURNING rows decide
 * the branch; time is always a bound parameter from Effect's Clock, never the
 * database's own clock. A new order costs two statements on the happy path:
 * the leased insert and the guarded `sent` update. The statements `receive` and
 * the sweep run are compiled once, when the store is made (`compiled.ts`).
 */
export const makeSqlStore = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const atomic = yield* SqlAtomic
  const direct = yield* DirectStatements

  // The statements of the receive path, compiled once (see `compiled`).
  const selectOrderStatement = compiled(sql, direct, ["key"], ($) => sql`SELECT * FROM hookgate_orders WHERE order_key = ${$.key}`)
  const selectOrder = (key: string) =>
    Effect.map(selectOrderStatement.run({ key }), (rows) => Option.map(Option.fromNullable(rows[0]), decodeOrder))

  const insertLeasedStatement = compiled(
    sql,
    direct,
    ["key", "provider", "eventId", "eventType", "email", "product", "amount", "currency", "metadata", "hash", "now", "token", "until", "source"],
    ($) =>
      sql`INSERT INTO hookgate_orders (
  order_key, provider, event_id, event_type, email, product, amount, currency, metadata, payload_hash,
  status, attempts, next_attempt_at, lease_token, lease_expires_at, uncertain,
  duplicates_prevented, possible_duplicates, leases_lost, created_at, updated_at, source
) VALUES (
  ${$.key}, ${$.provider}, ${$.eventId}, ${$.eventType}, ${$.email}, ${$.product}, ${$.amount},
  ${$.currency}, ${$.metadata}, ${$.hash},
  'pending', 0, ${$.now}, ${$.token}, ${$.until}, 0, 0, 0, 0, ${$.now}, ${$.now}, ${$.source}
) ON CONFLICT (order_key) DO NOTHING RETURNING order_key`
  )
  const insertLeased = (order: NewOrder, token: string, now: number, until: number) => {
    const f = order.fulfilment
    return insertLeasedStatement.run({
      key: order.key,
      provider: order.provider,
      eventId: order.eventId,
      eventType: order.eventType,
      email: f.email,
      product: f.product,
      amount: f.amount,
      currency: f.currency,
      metadata: JSON.stringify(f.metadata),
      hash: order.payloadHash,
      now,
      token,
      until,
      source: order.source
    })
  }

  const receiptStatement = compiled(
    sql,
    direct,
    ["provider", "eventId", "eventType", "orderKey", "outcome", "receivedAt", "detail", "objectId"],
    ($) =>
      sql`INSERT INTO hookgate_receipts
  (provider, event_id, event_type, order_key, outcome, received_at, last_seen_at, deliveries, detail, object_id)
VALUES (${$.provider}, ${$.eventId}, ${$.eventType}, ${$.orderKey}, ${$.outcome},
  ${$.receivedAt}, ${$.receivedAt}, 1, ${$.detail}, ${$.objectId})
ON CONFLICT (provider, event_id) DO UPDATE SET
  deliveries = hookgate_receipts.deliveries + 1,
  outcome = excluded.outcome,
  detail = excluded.detail,
  object_id = excluded.object_id,
  last_seen_at = excluded.last_seen_at`
  )
  const notePreventedStatement = compiled(sql, direct, ["key"], ($) =>
    sql`UPDATE hookgate_orders SET duplicates_prevented = duplicates_prevented + 1 WHERE order_key = ${$.key}`)
  const noteLeaseLostStatement = compiled(sql, direct, ["key"], ($) =>
    sql`UPDATE hookgate_orders SET leases_lost = leases_lost + 1 WHERE order_key = ${$.key}`)

  // Taking over a lease that was never released marks the order uncertain and
  // counts the attempt: its holder may have sent before it died.
  const acquireStatement = (dueOnly: boolean) =>
    compiled(sql, direct, ["key", "token", "until", "now", "maxAttempts"], ($) =>
      sql`UPDATE hookgate_orders SET
  lease_token = ${$.token}, lease_expires_at = ${$.until}, updated_at = ${$.now},
  uncertain = CASE WHEN lease_token IS NULL THEN uncertain ELSE 1 END,
  uncertain_attempts = uncertain_attempts + CASE WHEN lease_token IS NULL THEN 0 ELSE 1 END
WHERE order_key = ${$.key} AND status = 'pending' AND attempts < ${$.maxAttempts}
  AND (lease_token IS NULL OR lease_expires_at <= ${$.now})
  ${dueOnly ? sql`AND next_attempt_at <= ${$.now}` : sql``}
RETURNING *`)
  const acquireDue = acquireStatement(true)
  const acquireAny = acquireStatement(false)

  const completeStatement = (mailerHonoursKeys: boolean) =>
    recordedStep<"key" | "token" | "messageId" | "now", { possible_duplicate: number | string }>(
      sql,
      direct,
      ["key", "token", "messageId", "now"],
      ($, noted) =>
        sql`UPDATE hookgate_orders SET
  status = 'sent', message_id = ${$.messageId}, sent_at = ${$.now}, updated_at = ${$.now},
  lease_token = NULL, lease_expires_at = NULL, last_error = NULL,
  possible_duplicates = possible_duplicates + ${mailerHonoursKeys ? sql`0` : sql`uncertain`}${noted}
WHERE order_key = ${$.key} AND lease_token = ${$.token}
RETURNING ${mailerHonoursKeys ? sql`0` : sql`uncertain`} AS possible_duplicate`
    )
  const completeHonoured = completeStatement(true)
  const completeUnhonoured = completeStatement(false)

  const releaseStatement = (uncertain: boolean) =>
    recordedStep(sql, direct, ["key", "token", "status", "attempts", "error", "nextAttemptAt", "now"], ($, noted) =>
      sql`UPDATE hookgate_orders SET
  status = ${$.status}, attempts = ${$.attempts}, last_error = ${$.error},
  next_attempt_at = ${$.nextAttemptAt}, updated_at = ${$.now},
  lease_token = NULL, lease_expires_at = NULL, released_token = ${$.token},
  uncertain = ${uncertain ? sql`1` : sql`uncertain`},
  uncertain_attempts = uncertain_attempts + ${uncertain ? sql`1` : sql`0`}${noted}
WHERE order_key = ${$.key} AND lease_token = ${$.token}
RETURNING order_key`)
  const releaseUncertain = releaseStatement(true)
  const releaseKeepingUncertain = releaseStatement(false)

  const store: OrderStoreShape = {
    ...makeSqlPrune(sql, atomic),
    put: (order, { now, token, until }) =>
      Effect.gen(function*() {
        const inserted = yield* insertLeased(order, token, now, until)
        if (inserted[0] !== undefined) {
          return { _tag: "Stored" as const, leased: { token, order: newLeasedOrder(order, { token, now, until }) } }
        }
        const existing = yield* selectOrder(order.key)
        if (Option.isNone(existing)) {
          return yield* Effect.dieMessage(`order ${order.key} neither inserted nor found`)
        }
        return existing.value.payloadHash === order.payloadHash
          ? { _tag: "AlreadyStored" as const, order: existing.value }
          : { _tag: "Conflict" as const, existing: existing.value }
      }).pipe(unavailable("put")),

    get: (key) => selectOrder(key).pipe(unavailable("get")),

    due: (now, { limit, maxAttempts }) =>
      sql<{ order_key: string }>`SELECT order_key FROM hookgate_orders
WHERE status = 'pending' AND next_attempt_at <= ${now} AND attempts < ${maxAttempts}
  AND (lease_token IS NULL OR lease_expires_at <= ${now})
ORDER BY next_attempt_at, order_key LIMIT ${limit}`.pipe(
        Effect.map((rows) => rows.map((row) => row.order_key)),
        unavailable("due")
      ),

    list: ({ after, limit, provider, search, status }) =>
      sql`SELECT * FROM hookgate_orders WHERE ${
        sql.and([
          status === undefined
            ? sql`1 = 1`
            : status === "unknown"
            ? sql`status NOT IN ('pending', 'sent', 'failed', 'capped')` // what a newer release may write
            : sql`status = ${status}`,
          provider === undefined ? sql`1 = 1` : sql`provider = ${provider}`,
          search === undefined
            ? sql`1 = 1`
            : sql`(order_key = ${search} OR email = ${search} OR email = ${search.toLowerCase()})`,
          after === undefined
            ? sql`1 = 1`
            : sql`(created_at < ${after.createdAt} OR (created_at = ${after.createdAt} AND order_key > ${after.key}))`
        ])
      }
ORDER BY created_at DESC, order_key LIMIT ${limit}`.pipe(
        Effect.map((rows) => rows.map(decodeOrder)),
        unavailable("list")
      ),

    recordReceipt: (receipt) =>
      receiptStatement.run({
        provider: receipt.provider,
        eventId: receipt.eventId,
        eventType: receipt.eventType,
        orderKey: receipt.orderKey,
        outcome: receipt.outcome,
        receivedAt: receipt.receivedAt,
        detail: receipt.detail,
        objectId: receipt.objectId
      }).pipe(Effect.asVoid, unavailable("recordReceipt")),

    receipts: ({ limit, orderKey, outcomes }) =>
      sql`SELECT * FROM hookgate_receipts WHERE ${
        sql.and([
          orderKey === undefined ? sql`1 = 1` : sql`order_key = ${orderKey}`,
          outcomes === undefined ? sql`1 = 1` : sql.in("outcome", outcomes)
        ])
      }
ORDER BY received_at DESC, event_id LIMIT ${limit}`.pipe(
        Effect.map((rows) => rows.map(decodeReceipt)),
        unavailable("receipts")
      ),

    notePrevented: (key) =>
      notePreventedStatement.run({ key }).pipe(
        Effect.asVoid,
        unavailable("notePrevented")
      ),

    noteLeaseLost: (key, lost) =>
      Effect.asVoid<unknown, SqlError, never>(
        lost === undefined
          ? noteLeaseLostStatement.run({ key })
          : atomic.run([noteLeaseLostStatement.statement({ key }), insertLostAttempt(sql, key, lost)])
      ).pipe(unavailable("noteLeaseLost")),

    attempts: (key, { limit }) =>
      sql`SELECT * FROM hookgate_attempts WHERE order_key = ${key}
ORDER BY recorded_at DESC, attempt DESC LIMIT ${limit}`.pipe(
        Effect.map((rows) => rows.map(decodeAttempt)),
        unavailable("attempts")
      ),

    requeue: (key, now) =>
      sql`UPDATE hookgate_orders SET status = 'pending', attempts = 0, next_attempt_at = ${now}, updated_at = ${now}
WHERE order_key = ${key} AND status IN ('capped', 'failed') RETURNING *`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), decodeOrder)),
        unavailable("requeue")
      ),

    stats: sql`SELECT
  (SELECT COUNT(*) FROM hookgate_orders WHERE status = 'pending') AS pending,
  (SELECT COUNT(*) FROM hookgate_orders WHERE status = 'sent') AS sent,
  (SELECT COUNT(*) FROM hookgate_orders WHERE status = 'failed') AS failed,
  (SELECT COUNT(*) FROM hookgate_orders WHERE status = 'capped') AS capped,
  (SELECT COUNT(*) FROM hookgate_orders WHERE status NOT IN ('pending', 'sent', 'failed', 'capped')) AS unknown,
  (SELECT SUM(duplicates_prevented) FROM hookgate_orders) AS duplicates_prevented,
  (SELECT SUM(possible_duplicates) FROM hookgate_orders) AS possible_duplicates,
  (SELECT SUM(leases_lost) FROM hookgate_orders) AS leases_lost,
  (SELECT COUNT(*) FROM hookgate_alerts) AS alerts,
  (SELECT COUNT(*) FROM hookgate_alerts WHERE delivered_at IS NULL) AS alerts_undelivered,
  (SELECT COUNT(*) FROM hookgate_receipts) AS receipts`.pipe(
      Effect.map((rows) => {
        const r = Schema.decodeUnknownSync(StatsRow)(rows[0])
        return {
          orders: { pending: r.pending, sent: r.sent, failed: r.failed, capped: r.capped, unknown: r.unknown },
          duplicatesPrevented: r.duplicates_prevented ?? 0,
          possibleDuplicates: r.possible_duplicates ?? 0,
          leasesLost: r.leases_lost ?? 0,
          alerts: r.alerts,
          alertsUndelivered: r.alerts_undelivered,
          receipts: r.receipts
        }
      }),
      unavailable("stats")
    )
  }

  const lease: LeaseShape = {
    acquire: (key, { dueOnly, maxAttempts, now, token, until }) => {
      return (dueOnly ? acquireDue : acquireAny).run({ key, token, until, now, maxAttempts }).pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (row) => ({ token, order: decodeOrder(row) }))),
        unavailable("acquire")
      )
    },

    complete: (key, token, receipt, { attempt, mailerHonoursKeys, now }) =>
      (mailerHonoursKeys ? completeHonoured : completeUnhonoured).run({ key, token, messageId: receipt.messageId, now }, attempt).pipe(
        Effect.map((rows) =>
          Option.map(Option.fromNullable(rows[0]), (row) => ({ possibleDuplicate: Number(row.possible_duplicate) === 1 }))),
        unavailable("complete")
      ),

    release: (key, token, failure) => {
      const release = failure.uncertain ? releaseUncertain : releaseKeepingUncertain
      const values = {
        key,
        token,
        status: failure.status,
        attempts: failure.attempts,
        error: failure.error,
        nextAttemptAt: failure.nextAttemptAt,
        now: failure.now
      }
      if (Option.isNone(failure.alert)) {
        return release.run(values, failure.attempt).pipe(Effect.map((rows) => rows.length > 0), unavailable("release"))
      }
      const alert = failure.alert.value
      // Stored in the same atomic step, and only if this very release applied.
      return atomic.run([release.statement(values, failure.attempt), insertReleaseAlert(sql, alert, key, token)]).pipe(
        Effect.map((results) => (results[0] ?? []).length > 0),
        unavailable("release")
      )
    }
  }

  return { store, lease }
})

/** Every storage service hookgate has, on one database. */
export type SqlStoreServices =
  | OrderStore
  | Lease
  | AlertStore
  | MessageLedger
  | DeadLetterStore
  | CampaignStore
  | ReconcileCursors
  | RunLog

/**
 * Every port on the `SqlClient` in context (migrations must have run):
 * `OrderStore` and `Lease`, `AlertStore`, the queue and campaign ledgers
 * (`MessageLedger`, `DeadLetterStore`, `CampaignStore`), the reconciliation cursors
 * and the `RunLog`, as one `Context`.
 */
export const makeSqlStoreServices: Effect.Effect<Context.Context<SqlStoreServices>, never, SqlClient.SqlClient | SqlAtomic> =
  Effect.gen(function*() {
    const { lease, store } = yield* makeSqlStore
    // Times arrive whole (core's EpochMillis makes them so where they are produced):
    // BIGINT on Postgres, INTEGER on SQLite and D1.
    return Context.make(OrderStore, store).pipe(
      Context.add(Lease, lease),
      Context.add(AlertStore, yield* makeSqlAlertStore),
      Context.add(MessageLedger, yield* makeSqlMessageLedger),
      Context.add(DeadLetterStore, yield* makeSqlDeadLetters),
      Context.add(CampaignStore, yield* makeSqlCampaignStore),
      Context.add(ReconcileCursors, yield* makeSqlReconcileCursors),
      Context.add(RunLog, yield* makeSqlRunLog)
    )
  })

/** `makeSqlStoreServices` as a layer. */
export const layerSqlStore: Layer.Layer<SqlStoreServices, never, SqlClient.SqlClient | SqlAtomic> = Layer.effectContext(
  makeSqlStoreServices
)
