import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { migrations, MIGRATIONS_TABLE } from "./migrations/index.js"

/** The newest migration this release ships: the schema it knows. */
export const NEWEST_MIGRATION = migrations[migrations.length - 1]!

/**
 * The database records a migration newer than any this release ships: a newer
 * hookgate upgraded it. Reading or writing it could break what that release relies
 * on, so the store does not start.
 */
export class SchemaTooNew extends Data.TaggedError("SchemaTooNew")<{
  /** The newest migration recorded in the database. */
  readonly found: { readonly id: number; readonly name: string }
  /** The newest migration this release ships. */
  readonly known: { readonly id: number; readonly name: string }
}> {
  override get message() {
    return `the database's schema is at migration ${this.found.id} (${this.found.name}), newer than this hookgate knows ` +
      `(migration ${this.known.id}, ${this.known.name}): a newer hookgate upgraded it. ` +
      `Upgrade hookgate to that release or later, or restore the backup taken before that upgrade`
  }
}

/** Refuses `newest` (the newest recorded migration, if any) when it is past `NEWEST_MIGRATION`. */
export const refuseNewer = (newest: { readonly id: number; readonly name: string } | undefined): Effect.Effect<void, SchemaTooNew> =>
  newest !== undefined && newest.id > NEWEST_MIGRATION.id
    ? Effect.fail(new SchemaTooNew({ found: newest, known: { id: NEWEST_MIGRATION.id, name: NEWEST_MIGRATION.name } }))
    : Effect.void

/** Reads the newest migration the Migrator recorded (its table must exist) and refuses a newer schema. */
export const checkSchemaVersion: Effect.Effect<void, SchemaTooNew | SqlError, SqlClient.SqlClient> = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) =>
    Effect.flatMap(
      sql<{ readonly migration_id: number | string; readonly name: string }>`SELECT migration_id, name FROM ${sql(MIGRATIONS_TABLE)}
ORDER BY migration_id DESC LIMIT 1`.withoutTransform,
      (rows) => refuseNewer(rows[0] === undefined ? undefined : { id: Number(rows[0].migration_id), name: rows[0].name })
    )
)
