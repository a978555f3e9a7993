import type { MigrationError } from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { SqlStore } from "@hookgate/store-sql"
import { Config, type ConfigError, Effect, Layer } from "effect"
import { mkdirSync } from "node:fs"
import { dirname } from "node:path"

/** Where the database lives and how long a writer waits. */
export interface SqliteStoreOptions {
  /** A file path, or `:memory:`. The file's folder is created when missing. */
  readonly filename: string
  /** How long a writer waits for another process's write lock (default 5000 ms). */
  readonly busyTimeoutMs?: number
}

/**
 * The SQLite client hookgate wants: WAL (readers never block the writer, and
 * two processes may share the file) and a busy timeout so a second process
 * waits for the write lock instead of failing at once. Migrations run on start.
 */
export const layerClient = (options: SqliteStoreOptions) =>
  Layer.effectDiscard(
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.zipRight(sql.unsafe(`PRAGMA busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 5000)}`), SqlStore.migrate))
  ).pipe(
    Layer.provideMerge(
      Layer.unwrapEffect(Effect.sync(() => {
        if (options.filename !== ":memory:") mkdirSync(dirname(options.filename), { recursive: true })
        return SqliteClient.layer({ filename: options.filename })
      }))
    )
  )

/** Every hookgate store service (orders, leases, message and campaign ledgers) on an embedded SQLite database (better-sqlite3). */
export const layer = (options: SqliteStoreOptions): Layer.Layer<
  SqlStore.SqlStoreServices | SqlClient.SqlClient,
  SqlError | MigrationError | ConfigError.ConfigError
> =>
  SqlStore.layer().pipe(
    Layer.provide(SqlStore.SqlAtomic.layerTransaction()),
    Layer.provideMerge(layerClient(options))
  )

/** Reads `HOOKGATE_DB` (default `.hookgate/hookgate.db`). */
export const SqliteStoreConfig: Config.Config<SqliteStoreOptions> = Config.all({
  filename: Config.string("HOOKGATE_DB").pipe(Config.withDefault(".hookgate/hookgate.db"))
})

/** Every hookgate store service on the SQLite file named by Config (`SqliteStoreConfig` by default). */
export const layerConfig = (config: Config.Config<SqliteStoreOptions> = SqliteStoreConfig) =>
  Layer.unwrapEffect(Effect.map(config, layer))
