import { spanWhenTraced } from "@hookgate/core"
import * as Effect from "effect/Effect"
import type { D1Database } from "./database.js"
import { D1MigrationError } from "./errors.js"
import { D1_MIGRATIONS_TABLE, type D1Migration, d1Migrations } from "./migrations.js"
import { newestRecorded } from "./schema-version.js"
import { SqlStore } from "@hookgate/store-sql"

// Exactly the table wrangler creates, so either tool may apply the next migration.
const createTable = (table: string) =>
  `CREATE TABLE IF NOT EXISTS ${table}(
		id         INTEGER PRIMARY KEY AUTOINCREMENT,
		name       TEXT UNIQUE,
		applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL
);`

const d1 = <A>(migration: string, run: () => Promise<A>) =>
  Effect.tryPromise({ try: run, catch: (cause) => new D1MigrationError({ migration, cause }) })

/** Which migrations to apply (store-sql's by default). */
export interface ApplyMigrationsOptions {
  /** Default `d1_migrations`, wrangler's default; set it to your `migrations_table` if you changed that. */
  readonly table?: string
  /** Default: every migration of `@hookgate/store-sql`. */
  readonly migrations?: ReadonlyArray<D1Migration>
}

/**
 * Applies the migrations not yet recorded, as `wrangler d1 migrations apply`
 * does: each one with its record in `d1_migrations` in a single D1 batch (all
 * or nothing). For tests and first runs; wrangler and this function agree on
 * what is applied. Answers the names it applied. Two isolates racing on a fresh
 * database is harmless: the loser's batch fails whole and finds the migration applied.
 * A database that records a migration newer than this release ships is refused
 * (`SchemaTooNew`), with nothing applied.
 */
export const applyMigrations = (db: D1Database, options: ApplyMigrationsOptions = {}) =>
  Effect.gen(function*() {
    const table = options.table ?? D1_MIGRATIONS_TABLE
    const applied = d1(table, () => db.prepare(`SELECT name FROM ${table} ORDER BY id`).all<{ name: string }>()).pipe(
      Effect.map((result) => new Set(result.results.map((row) => row.name)))
    )
    // Once applied, an isolate's start costs one read; the table is created only when missing.
    const before = yield* applied.pipe(
      Effect.orElse(() => Effect.zipRight(d1(table, () => db.prepare(createTable(table)).run()), applied))
    )
    // A newer hookgate's migration recorded: apply nothing, refuse (store-sql's SchemaTooNew).
    yield* SqlStore.refuseNewer(newestRecorded(before))
    const done: Array<string> = []
    for (const migration of options.migrations ?? d1Migrations) {
      if (before.has(migration.name)) continue
      const batch = [
        ...migration.statements.map((statement) => db.prepare(statement)),
        db.prepare(`INSERT INTO ${table} (name) VALUES (?)`).bind(migration.name)
      ]
      const result = yield* Effect.either(d1(migration.name, () => db.batch(batch)))
      if (result._tag === "Left") {
        if ((yield* applied).has(migration.name)) continue // applied meanwhile by another isolate
        return yield* result.left
      }
      done.push(migration.name)
    }
    return done as ReadonlyArray<string>
  }).pipe(spanWhenTraced("d1.migrate"))
