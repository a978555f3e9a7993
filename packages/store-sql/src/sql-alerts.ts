import * as SqlClient from "@effect/sql/SqlClient"
import type { Alert, AlertStoreShape } from "@hookgate/core/alerts"
import { Effect } from "effect"
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

    recordAttempt: (id, { at, error }) =>
      (error === null
        ? sql`UPDATE hookgate_alerts SET delivered_at = ${at}, delivery_error = NULL WHERE alert_id = ${id}`
        : sql`UPDATE hookgate_alerts SET delivery_error = ${error} WHERE alert_id = ${id}`).pipe(
          Effect.asVoid,
          unavailable("recordAlertAttempt")
        ),

    list: ({ limit }) =>
      sql`SELECT * FROM hookgate_alerts ORDER BY created_at DESC, alert_id LIMIT ${limit}`.pipe(
        Effect.map((rows) => rows.map(decodeAlert)),
        unavailable("alerts")
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
