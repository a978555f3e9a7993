import type { MigrationError } from "@effect/sql/Migrator"
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { SchemaTooNew, SqlStore, type SqlStoreServices } from "@hookgate/store-sql"
import { Config, type ConfigError, Duration, Effect, Layer } from "effect"
import { mkdirSync } from "node:fs"
import { dirname } from "node:path"
import { layerBusyRetryingClient } from "./busy-retry.js"
import { cannotOpen } from "./connection.js"
import { explainSqliteFailure, type SqliteCorrupt, type SqliteLocked, type SqliteNotADatabase } from "./errors.js"

export { explainSqliteFailure, SqliteCorrupt, SqliteLocked, SqliteNotADatabase } from "./errors.js"

/** Where the database lives and how long a writer waits. */
export interface SqliteStoreOptions {
  /** A file path, or `:memory:`. The file's folder is created when missing. */
  readonly filename: string
  /**
   * How long a statement waits in all for another process's write lock before
   * it fails (and the store reports itself unavailable); default 5000 ms. The
   * wait is an Effect Schedule: it never blocks the event loop for more than a few ms.
   */
  readonly busyTimeoutMs?: number
}

/**
 * The SQLite client hookgate wants: WAL (readers never block the writer, and
 * two processes may share the file), and a second process's write lock waited
 * for without blocking the event loop (see `layerBusyRetryingClient`).
 * Migrations run on start; a schema newer than this release is refused
 * (`SchemaTooNew`), and a file locked elsewhere, damaged or not a database fails
 * with `SqliteLocked`, `SqliteCorrupt` or `SqliteNotADatabase`.
 */
export const layerClient = (options: SqliteStoreOptions) => {
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000
  // A lock held elsewhere, a damaged page, a file that is not a database: named (`errors.ts`).
  const explain = explainSqliteFailure(options.filename, { waitedMs: busyTimeoutMs })
  const migrate = SqlStore.migrate.pipe(
    // The Migrator turns a failed migration into a defect; one with a SQLite cause is named instead.
    Effect.catchAllDefect((defect) => {
      const named = explain(defect)
      return named === undefined ? Effect.die(defect) : Effect.fail(named)
    })
  )
  return Layer.effectDiscard(migrate).pipe(
    Layer.provideMerge(
      Layer.unwrapEffect(Effect.try({
        try: () => {
          if (options.filename !== ":memory:") mkdirSync(dirname(options.filename), { recursive: true })
          return layerBusyRetryingClient({ filename: options.filename, busyBudget: Duration.millis(busyTimeoutMs) })
        },
        catch: (cause) => cannotOpen(options.filename, cause)
      }))
    ),
    Layer.mapError((error) => explain(error) ?? error)
  )
}

/** Every hookgate store service (orders, leases, message and campaign ledgers) on an embedded SQLite database (better-sqlite3). */
export const layer = (options: SqliteStoreOptions): Layer.Layer<
  SqlStoreServices | SqlClient.SqlClient,
  SqlError | MigrationError | SchemaTooNew | SqliteLocked | SqliteCorrupt | SqliteNotADatabase | ConfigError.ConfigError
> =>
  SqlStore.layer().pipe(
    Layer.provide(SqlStore.SqlAtomic.layerTransaction()),
    Layer.provideMerge(layerClient(options))
  )

/**
 * Every hookgate store service on an embedded SQLite database, with its `SqlClient`, as one
 * `Context` (what `layer` provides), open and migrated; the database closes with the scope.
 */
export const make = (options: SqliteStoreOptions) => Layer.build(layer(options))

/** Reads `HOOKGATE_DB` (default `.hookgate/hookgate.db`). */
export const SqliteStoreConfig: Config.Config<SqliteStoreOptions> = Config.all({
  filename: Config.string("HOOKGATE_DB").pipe(Config.withDefault(".hookgate/hookgate.db"))
})

/** Every hookgate store service on the SQLite file named by Config (`SqliteStoreConfig` by default). */
export const layerConfig = (config: Config.Config<SqliteStoreOptions> = SqliteStoreConfig) =>
  Layer.unwrapEffect(Effect.map(config, layer))
