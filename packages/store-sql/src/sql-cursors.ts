import * as SqlClient from "@effect/sql/SqlClient"
import type { ReconcileCursorsShape } from "@hookgate/core"
import * as Arr from "effect/Array"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { unavailable } from "./unavailable.js"

// Postgres hands BIGINT back as text.
const Millis = Schema.Union(Schema.Number, Schema.NumberFromString)
const CursorRow = Schema.Struct({ created_at: Millis })
const PositionRow = Schema.Struct({ created_at: Millis, event_id: Schema.String })
const AlertedRow = Schema.Struct({ order_key: Schema.String })
const decodeCursor = (input: unknown) => Schema.decodeUnknownSync(CursorRow)(input)
const decodePosition = (input: unknown) => Schema.decodeUnknownSync(PositionRow)(input)
const decodeAlerted = (input: unknown) => Schema.decodeUnknownSync(AlertedRow)(input)

/**
 * Each provider's reconciliation cursor, one row per provider. `advance` is one
 * upsert that moves the cursor only forward, so runs finishing at once in several
 * processes leave the newest. The position of an unfinished run has a table of its
 * own (`hookgate_reconcile_positions`, migration 11), one row per provider, deleted
 * when a run finishes; the order keys an owner alert named, one row per key.
 */
export const makeSqlReconcileCursors = Effect.map(SqlClient.SqlClient, (sql): ReconcileCursorsShape => ({
  get: (provider) =>
    sql`SELECT created_at FROM hookgate_reconcile_cursors WHERE provider = ${provider}`.pipe(
      Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (row) => decodeCursor(row).created_at)),
      unavailable("reconcileCursor")
    ),
  advance: (provider, created, now) =>
    sql`INSERT INTO hookgate_reconcile_cursors (provider, created_at, updated_at) VALUES (${provider}, ${created}, ${now})
ON CONFLICT (provider) DO UPDATE SET created_at = excluded.created_at, updated_at = excluded.updated_at
WHERE hookgate_reconcile_cursors.created_at < excluded.created_at`.pipe(
      Effect.asVoid,
      unavailable("advanceReconcileCursor")
    ),
  progress: (provider) =>
    sql`SELECT created_at, event_id FROM hookgate_reconcile_positions WHERE provider = ${provider}`.pipe(
      Effect.map((rows) =>
        Option.map(Option.fromNullable(rows[0]), (row) => {
          const { created_at: created, event_id: id } = decodePosition(row)
          return { created, id }
        })
      ),
      unavailable("reconcileProgress")
    ),
  keepProgress: (provider, position, now) =>
    sql`INSERT INTO hookgate_reconcile_positions (provider, created_at, event_id, updated_at)
VALUES (${provider}, ${position.created}, ${position.id}, ${now})
ON CONFLICT (provider) DO UPDATE SET created_at = excluded.created_at, event_id = excluded.event_id,
updated_at = excluded.updated_at`.pipe(
      Effect.asVoid,
      unavailable("keepReconcileProgress")
    ),
  clearProgress: (provider) =>
    sql`DELETE FROM hookgate_reconcile_positions WHERE provider = ${provider}`.pipe(
      Effect.asVoid,
      unavailable("clearReconcileProgress")
    ),
  // In chunks: D1 binds at most 100 parameters per statement.
  alerted: (provider, keys) =>
    Effect.forEach(Arr.chunksOf(keys, 50), (chunk) =>
      sql`SELECT order_key FROM hookgate_reconcile_alerted WHERE provider = ${provider} AND ${sql.in("order_key", chunk)}`).pipe(
        Effect.map((pages) => new Set(pages.flat().map((row) => decodeAlerted(row).order_key))),
        unavailable("reconcileAlerted")
      ),
  recordAlerted: (provider, keys, now) =>
    Effect.forEach(keys, (key) =>
      sql`INSERT INTO hookgate_reconcile_alerted (provider, order_key, alerted_at) VALUES (${provider}, ${key}, ${now})
ON CONFLICT (provider, order_key) DO NOTHING`, { discard: true }).pipe(
      unavailable("recordReconcileAlerted")
    )
}))
