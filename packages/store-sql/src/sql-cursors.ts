import * as SqlClient from "@effect/sql/SqlClient"
import type { ReconcileCursorsShape } from "@hookgate/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { unavailable } from "./unavailable.js"

// Postgres hands BIGINT back as text.
const Millis = Schema.Union(Schema.Number, Schema.NumberFromString)
const CursorRow = Schema.Struct({ created_at: Schema.NullOr(Millis) })
const ProgressRow = Schema.Struct({ resume_created: Schema.NullOr(Millis), resume_id: Schema.NullOr(Schema.String) })
const decodeCursor = Schema.decodeUnknownSync(CursorRow)
const decodeProgress = Schema.decodeUnknownSync(ProgressRow)

/**
 * Each provider's reconciliation cursor, one row per provider. `advance` is one
 * upsert that moves the cursor only forward, so runs finishing at once in several
 * processes leave the newest. The position of an unfinished run shares the row; a
 * row holding only a position has no cursor yet (`created_at` null).
 */
export const makeSqlReconcileCursors = Effect.map(SqlClient.SqlClient, (sql): ReconcileCursorsShape => ({
  get: (provider) =>
    sql`SELECT created_at FROM hookgate_reconcile_cursors WHERE provider = ${provider}`.pipe(
      Effect.map((rows) => Option.flatMap(Option.fromNullable(rows[0]), (row) => Option.fromNullable(decodeCursor(row).created_at))),
      unavailable("reconcileCursor")
    ),
  advance: (provider, created, now) =>
    sql`INSERT INTO hookgate_reconcile_cursors (provider, created_at, updated_at) VALUES (${provider}, ${created}, ${now})
ON CONFLICT (provider) DO UPDATE SET created_at = excluded.created_at, updated_at = excluded.updated_at
WHERE hookgate_reconcile_cursors.created_at IS NULL OR hookgate_reconcile_cursors.created_at < excluded.created_at`.pipe(
      Effect.asVoid,
      unavailable("advanceReconcileCursor")
    ),
  progress: (provider) =>
    sql`SELECT resume_created, resume_id FROM hookgate_reconcile_cursors WHERE provider = ${provider}`.pipe(
      Effect.map((rows) =>
        Option.flatMap(Option.fromNullable(rows[0]), (row) => {
          const { resume_created: created, resume_id: id } = decodeProgress(row)
          return created === null || id === null ? Option.none() : Option.some({ created, id })
        })
      ),
      unavailable("reconcileProgress")
    ),
  keepProgress: (provider, position, now) =>
    sql`INSERT INTO hookgate_reconcile_cursors (provider, resume_created, resume_id, updated_at)
VALUES (${provider}, ${position.created}, ${position.id}, ${now})
ON CONFLICT (provider) DO UPDATE SET resume_created = excluded.resume_created, resume_id = excluded.resume_id,
updated_at = excluded.updated_at`.pipe(
      Effect.asVoid,
      unavailable("keepReconcileProgress")
    ),
  clearProgress: (provider) =>
    sql`UPDATE hookgate_reconcile_cursors SET resume_created = NULL, resume_id = NULL WHERE provider = ${provider}`.pipe(
      Effect.asVoid,
      unavailable("clearReconcileProgress")
    )
}))
