import * as SqlClient from "@effect/sql/SqlClient"
import type { Alert, AlertStoreShape } from "@hookgate/core/alerts"
import * as Effect from "effect/Effect"
import { decodeAlert } from "./rows.js"
import { unavailable } from "./unavailable.js"

/** The `AlertStore` on `hookgate_alerts`: one statement per operation. */
export const makeSqlAlertStore: Effect.Effect<AlertStoreShape, never, SqlClient.SqlClient> = Effect.map(
  SqlClient.SqlClient,
  (sql): AlertStoreShape => ({
    save: (alert) =>
      sql`INSERT INTO hookgate_alerts (alert_id, kind, order_key, message, created_at, delivered_at, delivery_error)
VALUES (${alert.id}, ${alert.kind}, ${alert.orderKey}, ${alert.message}, ${alert.createdAt}, ${alert.deliveredAt},
  ${alert.deliveryError})
ON CONFLICT (alert_id) DO NOTHING RETURNING alert_id`.pipe(
        Effect.map((rows) => rows.length > 0),
        unavailable("saveAlert")
      ),

    recordAttempt: (id, { at, attempts, error, nextAttemptAt }) =>
      (error === null
        ? sql`UPDATE hookgate_alerts SET delivered_at = ${at}, delivery_error = NULL,
  attempts = ${attempts}, next_attempt_at = ${nextAttemptAt} WHERE alert_id = ${id}`
        : sql`UPDATE hookgate_alerts SET delivery_error = ${error},
  attempts = ${attempts}, next_attempt_at = ${nextAttemptAt} WHERE alert_id = ${id}`).pipe(
          Effect.asVoid,
          unavailable("recordAlertAttempt")
        ),

    // One statement: the due alerts are picked and pushed to `until` together.
    claimDue: (now, { limit, until }) =>
      sql`UPDATE hookgate_alerts SET next_attempt_at = ${until}
WHERE alert_id IN (
  SELECT alert_id FROM hookgate_alerts
  WHERE delivered_at IS NULL AND next_attempt_at IS NOT NULL AND next_attempt_at <= ${now}
  ORDER BY next_attempt_at, alert_id LIMIT ${limit}
)
RETURNING *`.pipe(
        Effect.map((rows) => rows.map(decodeAlert).sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id))),
        unavailable("claimDueAlerts")
      ),

    list: ({ limit, orderKey, state }) =>
      sql`SELECT * FROM hookgate_alerts WHERE ${
        sql.and([
          state === undefined ? sql`1 = 1` : state === "open" ? sql`resolved_at IS NULL` : sql`resolved_at IS NOT NULL`,
          orderKey === undefined ? sql`1 = 1` : sql`order_key = ${orderKey}`
        ])
      } ORDER BY created_at DESC, alert_id LIMIT ${limit}`.pipe(
        Effect.map((rows) => rows.map(decodeAlert)),
        unavailable("alerts")
      ),

    resolve: (id, { at, note }) =>
      sql`UPDATE hookgate_alerts SET resolved_at = ${at}, resolution_note = ${note}
WHERE alert_id = ${id} AND resolved_at IS NULL RETURNING alert_id`.pipe(
        Effect.map((rows) => rows.length > 0),
        unavailable("resolveAlert")
      )
  })
)

/**
 * The insert of a capped or failed order's alert, for the same atomic step as
 * the release that caps it: it stores the alert only if that very release
 * applied (the order carries the releasing token).
 */
// The CAST: Postgres types a bare parameter in a SELECT list as text, not as the column's BIGINT.
export const insertReleaseAlert = (sql: SqlClient.SqlClient, alert: Alert, key: string, token: string) =>
  sql`INSERT INTO hookgate_alerts (alert_id, kind, order_key, message, created_at)
SELECT ${alert.id}, ${alert.kind}, ${alert.orderKey}, ${alert.message}, CAST(${alert.createdAt} AS BIGINT)
WHERE EXISTS (SELECT 1 FROM hookgate_orders WHERE order_key = ${key} AND released_token = ${token})
ON CONFLICT (alert_id) DO NOTHING`
