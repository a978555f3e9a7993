/**
 * Every stored time a whole epoch millisecond: releases before the `EpochMillis` wrappers
 * could store a fraction (a jittered retry delay added to `now`), which SQLite keeps as a
 * REAL; floored here (CAST to BIGINT truncates, and times are positive), so the data moves
 * to Postgres' BIGINT columns later. On Postgres nothing matches (a BIGINT holds no fraction).
 * One statement per table, touching only the rows with a fraction. The time columns as
 * they are at this migration (`stored-times.ts` lists today's), written out: a migration's
 * text never changes once released.
 */
const floorTimes = (table: string, columns: ReadonlyArray<string>) =>
  `UPDATE ${table} SET ${columns.map((c) => `${c} = CAST(${c} AS BIGINT)`).join(", ")}
WHERE ${columns.map((c) => `${c} <> CAST(${c} AS BIGINT)`).join(" OR ")}`

export const statements: ReadonlyArray<string> = [
  floorTimes("hookgate_orders", ["next_attempt_at", "lease_expires_at", "sent_at", "created_at", "updated_at"]),
  floorTimes("hookgate_receipts", ["received_at", "last_seen_at"]),
  floorTimes("hookgate_alerts", ["created_at", "delivered_at", "next_attempt_at"]),
  floorTimes("hookgate_messages", ["lease_expires_at", "created_at", "updated_at", "completed_at"]),
  floorTimes("hookgate_dead_letters", ["received_at"]),
  floorTimes("hookgate_campaigns", ["created_at", "updated_at"]),
  floorTimes("hookgate_campaign_recipients", ["lease_expires_at", "sent_at"])
]
