import * as SqlClient from "@effect/sql/SqlClient"
import type { ReconcileCursorsShape } from "@hookgate/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { unavailable } from "./unavailable.js"

const CursorRow = Schema.Struct({ created_at: Schema.Union(Schema.Number, Schema.NumberFromString) })
const decodeCursor = Schema.decodeUnknownSync(CursorRow)

/**
 * Each provider's reconciliation cursor, one row per provider. `advance` is one
 * upsert that moves the cursor only forward, so runs finishing at once in several
 * processes leave the newest.
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
    )
}))
