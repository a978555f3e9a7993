import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/** Every time column of the schema, by table: each holds whole epoch milliseconds, or NULL. */
export const TIME_COLUMNS = {
  hookgate_orders: ["next_attempt_at", "lease_expires_at", "sent_at", "created_at", "updated_at"],
  hookgate_receipts: ["received_at", "last_seen_at"],
  hookgate_alerts: ["created_at", "delivered_at", "next_attempt_at"],
  hookgate_messages: ["lease_expires_at", "created_at", "updated_at", "completed_at"],
  hookgate_dead_letters: ["received_at"],
  hookgate_campaigns: ["created_at", "updated_at"],
  hookgate_campaign_recipients: ["lease_expires_at", "sent_at"],
  hookgate_attempts: ["started_at", "recorded_at"],
  hookgate_runs: ["started_at", "finished_at"]
} as const

/**
 * Every stored time, as the driver reads it back (for checks: on SQLite and D1 a
 * fraction bound to an INTEGER column would come back as a REAL).
 */
export const storedTimes = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.map(
    Effect.forEach(Object.entries(TIME_COLUMNS), ([table, columns]) =>
      sql`SELECT ${sql.literal(columns.join(", "))} FROM ${sql(table)}`.values),
    (tables): ReadonlyArray<unknown> => tables.flat(2)
  ))
