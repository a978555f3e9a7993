import * as SqlClient from "@effect/sql/SqlClient"
import { type DeadLetterStoreShape, type MessageLedgerShape } from "@hookgate/core/queue"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { decodeDeadLetter, decodeMessage } from "./ledger-rows.js"
import { makeSqlMessagePrune } from "./sql-prune.js"
import { unavailable } from "./unavailable.js"

/**
 * `MessageLedger` in SQL: the lease is taken by one upsert that only updates a
 * pending row whose lease is free or expired, and whose RETURNING row says
 * whether it did; a delivery that did not get it counts itself on the row and
 * reads why in one more statement. The happy path is two statements (lease, complete).
 */
export const makeSqlMessageLedger = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const ledger: MessageLedgerShape = {
    ...makeSqlMessagePrune(sql),
    acquire: (key, { now, token, until }) =>
      Effect.gen(function*() {
        const leased = yield* sql<{ attempts: number | string }>`INSERT INTO hookgate_messages
  (message_key, status, lease_token, lease_expires_at, attempts, runs, duplicates, created_at, updated_at)
VALUES (${key}, 'pending', ${token}, ${until}, 0, 1, 0, ${now}, ${now})
ON CONFLICT (message_key) DO UPDATE SET
  lease_token = excluded.lease_token, lease_expires_at = excluded.lease_expires_at,
  runs = hookgate_messages.runs + 1, updated_at = excluded.updated_at
WHERE hookgate_messages.status = 'pending'
  AND (hookgate_messages.lease_token IS NULL OR hookgate_messages.lease_expires_at <= ${now})
RETURNING attempts`
        if (leased[0] !== undefined) return { _tag: "Leased" as const, token, attempts: Number(leased[0].attempts) }
        const [row] = yield* sql<{ status: string; lease_expires_at: number | string | null; completed_at: number | string | null }>`
UPDATE hookgate_messages SET duplicates = duplicates + 1 WHERE message_key = ${key}
RETURNING status, lease_expires_at, completed_at`
        if (row === undefined) return yield* Effect.dieMessage(`message ${key} neither leased nor found`)
        return row.status === "completed"
          ? { _tag: "Completed" as const, completedAt: Number(row.completed_at ?? now) }
          : { _tag: "InProgress" as const, until: Number(row.lease_expires_at ?? now) }
      }).pipe(unavailable("message.acquire")),

    complete: (key, token, { now }) =>
      sql`UPDATE hookgate_messages SET status = 'completed', completed_at = ${now}, updated_at = ${now},
  lease_token = NULL, lease_expires_at = NULL, last_error = NULL
WHERE message_key = ${key} AND lease_token = ${token}
RETURNING message_key`.pipe(Effect.map((rows) => rows.length > 0), unavailable("message.complete")),

    release: (key, token, { error, now }) =>
      sql`UPDATE hookgate_messages SET attempts = attempts + 1, last_error = ${error}, updated_at = ${now},
  lease_token = NULL, lease_expires_at = NULL
WHERE message_key = ${key} AND lease_token = ${token}
RETURNING message_key`.pipe(Effect.map((rows) => rows.length > 0), unavailable("message.release")),

    get: (key) =>
      sql`SELECT * FROM hookgate_messages WHERE message_key = ${key}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), decodeMessage)),
        unavailable("message.get")
      )
  }
  return ledger
})

/** `DeadLetterStore` in SQL: one row per (queue, message id). */
export const makeSqlDeadLetters = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const store: DeadLetterStoreShape = {
    put: (letter) =>
      Effect.gen(function*() {
        yield* sql`INSERT INTO hookgate_dead_letters (queue, message_id, body, attempts, received_at)
VALUES (${letter.queue}, ${letter.messageId}, ${letter.body}, ${letter.attempts}, ${letter.receivedAt})
ON CONFLICT (queue, message_id) DO NOTHING`
        const [row] = yield* sql<{ n: number | string }>`SELECT COUNT(*) AS n FROM hookgate_dead_letters WHERE queue = ${letter.queue}`
        return Number(row?.n ?? 0)
      }).pipe(unavailable("deadLetters.put")),
    list: ({ limit, queue }) =>
      sql`SELECT * FROM hookgate_dead_letters ${queue === undefined ? sql`` : sql`WHERE queue = ${queue}`}
ORDER BY received_at DESC, message_id LIMIT ${limit}`.pipe(
        Effect.map((rows) => rows.map(decodeDeadLetter)),
        unavailable("deadLetters.list")
      )
  }
  return store
})
