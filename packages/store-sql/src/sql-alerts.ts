import * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
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

    // One statement: the due alerts are picked and pushed to `until` together. Due rests on
    // no column a migration had to fill in: any undelivered row below the cap is due once its
    // next attempt, or (none recorded: not attempted yet, its outcome never recorded, or
    // written by a release that kept none) its creation a lease ago, has come. The outer
    // WHERE repeats the test so that, on Postgres, a claim that waited for a row another claim
    // took rechecks it on the newer row version and leaves it.
    claimDue: (now, { limit, maxAttempts, staleBefore, until }) =>
      sql`UPDATE hookgate_alerts SET next_attempt_at = ${until}
WHERE alert_id IN (
  SELECT alert_id FROM hookgate_alerts
  WHERE delivered_at IS NULL AND attempts < ${maxAttempts}
    AND (next_attempt_at <= ${now} OR (next_attempt_at IS NULL AND created_at <= ${staleBefore}))
  ORDER BY COALESCE(next_attempt_at, created_at), alert_id LIMIT ${limit}
)
AND delivered_at IS NULL AND (next_attempt_at <= ${now} OR (next_attempt_at IS NULL AND created_at <= ${staleBefore}))
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
 * The insert of an alert for the same atomic step as the write whose outcome it
 * reports: it stores the alert only if `applied` holds after that write (the
 * rows it wrote carry its token as `released_token`).
 */
// The CAST: Postgres types a bare parameter in a SELECT list as text, not as the column's BIGINT.
const insertAlertIf = (sql: SqlClient.SqlClient, alert: Alert, applied: Statement.Fragment) =>
  sql`INSERT INTO hookgate_alerts (alert_id, kind, order_key, message, created_at)
SELECT ${alert.id}, ${alert.kind}, ${alert.orderKey}, ${alert.message}, CAST(${alert.createdAt} AS BIGINT)
WHERE ${applied}
ON CONFLICT (alert_id) DO NOTHING`

/** A capped or failed order's alert, stored only if the release under `token` applied. */
export const insertReleaseAlert = (sql: SqlClient.SqlClient, alert: Alert, key: string, token: string) =>
  insertAlertIf(sql, alert, sql`EXISTS (SELECT 1 FROM hookgate_orders WHERE order_key = ${key} AND released_token = ${token})`)

/** A campaign batch's alert, stored only if the record under `token` wrote a row of the batch. */
export const insertRecordAlert = (sql: SqlClient.SqlClient, alert: Alert, campaignId: string, batch: number, token: string) =>
  insertAlertIf(
    sql,
    alert,
    sql`EXISTS (SELECT 1 FROM hookgate_campaign_recipients
  WHERE campaign_id = ${campaignId} AND batch_no = ${batch} AND released_token = ${token})`
  )
