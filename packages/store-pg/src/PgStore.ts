import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { PgClient } from "@effect/sql-pg"
import { durationConfig } from "@hookgate/core"
import { SchemaTooNew, SqlStore, type SqlStoreServices } from "@hookgate/store-sql"
import { Config, Context, Duration, Effect, Layer, Redacted } from "effect"
import Pg from "pg"
import * as DirectStatements from "./direct-statements.js"
import { PgConnectionError, PgMigrationError } from "./errors.js"

export { PgConnectionError, PgMigrationError }

/** Connections in one process's pool when none is given. */
export const DEFAULT_MAX_CONNECTIONS = 10
/** How long a statement may run before Postgres cancels it. */
export const DEFAULT_STATEMENT_TIMEOUT = Duration.seconds(5)
/** How long a statement waits for a connection. */
export const DEFAULT_CONNECT_TIMEOUT = Duration.seconds(10)

export interface PgStoreOptions {
  /** `postgres://user:password@host:port/database`; kept `Redacted`, never logged. */
  readonly url: Redacted.Redacted<string>
  /** Connections in this process's pool (default 10). */
  readonly maxConnections?: number
  /** Postgres cancels a statement that runs longer (default 5 seconds); the request answers 503. */
  readonly statementTimeout?: Duration.DurationInput
  /**
   * How long a statement waits for a connection: a new one to be opened, or a busy pool to
   * free one (default 10 seconds). Past it the request answers 503 `unavailable`.
   */
  readonly connectTimeout?: Duration.DurationInput
  /** Shown in `pg_stat_activity` (default `hookgate`). */
  readonly applicationName?: string
  /**
   * Whether the store's own fixed statements run as named prepared statements, parsed
   * and planned once per connection (default true). Behind a pooler that shares server
   * sessions between clients and refuses them, the store notices and stops naming them.
   */
  readonly prepare?: boolean
}

/** Host, port and database of a URL: what errors and logs may show (never the password). */
export const describeTarget = (url: Redacted.Redacted<string>): string => {
  try {
    const parsed = new URL(Redacted.value(url))
    return `${parsed.hostname}:${parsed.port === "" ? "5432" : parsed.port}${parsed.pathname}`
  } catch {
    return "(a URL that does not parse)"
  }
}

// BIGINT (epoch-ms times, COUNT, SUM) read as a number: every value hookgate stores is far below 2^53.
const INT8_OID = 20
const types: Pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8_OID && format !== "binary" ? Number : Pg.types.getTypeParser(oid, format)) as Pg.CustomTypesConfig["getTypeParser"]
}

const acquirePool = (options: PgStoreOptions) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const pool = new Pg.Pool({
        connectionString: Redacted.value(options.url),
        max: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
        connectionTimeoutMillis: Duration.toMillis(options.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT),
        statement_timeout: Duration.toMillis(options.statementTimeout ?? DEFAULT_STATEMENT_TIMEOUT),
        application_name: options.applicationName ?? "hookgate",
        types
      })
      // An idle connection the server closed (a restart) is dropped by the pool; without
      // a listener Node would treat the event as an uncaught error.
      pool.on("error", () => {})
      return pool
    }),
    (pool) => Effect.promise(() => pool.end()).pipe(Effect.interruptible, Effect.timeoutOption("1 second"))
  ).pipe(
    Effect.tap((pool) =>
      Effect.tryPromise({
        try: () => pool.query("SELECT 1"),
        catch: (cause) => new SqlError({ cause, message: "PgStore: could not connect" })
      })
    )
  )

// Several processes may start on a fresh database at once: the Migrator creates its table
// outside any lock, so it is created first under a transaction-scoped advisory lock. The
// Migrator then serialises the migrations themselves (LOCK TABLE in one transaction).
const ensureMigrationsTable = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.withTransaction(
    Effect.zipRight(
      sql`SELECT pg_advisory_xact_lock(hashtextextended(${SqlStore.MIGRATIONS_TABLE}, 0))`,
      sql`CREATE TABLE IF NOT EXISTS ${sql(SqlStore.MIGRATIONS_TABLE)} (
  migration_id integer primary key,
  created_at timestamp with time zone not null default now(),
  name text not null
)`
    )
  ))

/**
 * `@effect/sql-pg`'s client on a pool built from the options (pool size,
 * statement timeout), connected and migrated before the layer is ready, and the
 * store's `DirectStatements` on the same pool (see `prepare`).
 */
export const layerClient = (
  options: PgStoreOptions
): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, PgConnectionError | PgMigrationError | SchemaTooNew> => {
  const target = describeTarget(options.url)
  const client = Layer.scopedContext(Effect.gen(function*() {
    const pool = yield* acquirePool(options)
    const client = yield* PgClient.fromPool({ acquire: Effect.succeed(pool), types })
    // `DirectStatements` is a `Context.Reference` (store-sql falls back to the client
    // without it): it rides along in the context without widening the layer's type.
    return Context.make(PgClient.PgClient, client).pipe(
      Context.add(SqlClient.SqlClient, client),
      Context.add(SqlStore.DirectStatements, DirectStatements.make(pool, { prepare: options.prepare ?? true }))
    ) as Context.Context<never> as Context.Context<PgClient.PgClient | SqlClient.SqlClient>
  })).pipe(
    Layer.provide(Reactivity.layer),
    Layer.mapError((cause) => new PgConnectionError({ target, cause }))
  )
  // A schema newer than this release knows is refused in its own words (both versions, what to do).
  const migrations = Layer.effectDiscard(
    Effect.zipRight(ensureMigrationsTable, SqlStore.migrate).pipe(
      Effect.mapError((cause) => cause instanceof SchemaTooNew ? cause : new PgMigrationError({ target, cause }))
    )
  )
  return Layer.provideMerge(migrations, client)
}

/**
 * Every hookgate store service (`OrderStore`, `Lease`, `AlertStore`, and the message
 * and campaign ledgers) on PostgreSQL: store-sql's protocol, unchanged, over
 * `@effect/sql-pg`. Every lease step is one conditional statement; the steps that
 * must stand or fall together run in one transaction. Any number of processes
 * may share the database.
 */
export const layer = (
  options: PgStoreOptions
): Layer.Layer<
  SqlStoreServices | PgClient.PgClient | SqlClient.SqlClient,
  PgConnectionError | PgMigrationError | SchemaTooNew
> =>
  SqlStore.layer().pipe(
    Layer.provide(SqlStore.SqlAtomic.layerTransaction()),
    Layer.provideMerge(layerClient(options))
  )

/**
 * Every hookgate store service on PostgreSQL, with its `PgClient` and `SqlClient`, as one
 * `Context` (what `layer` provides), connected and migrated; the pool closes with the scope.
 */
export const make = (options: PgStoreOptions) => Layer.build(layer(options))

/** A timeout of 0 would fail every statement (or every wait for a connection). */
const positiveDuration = (name: string, fallback: Duration.Duration) =>
  durationConfig(name).pipe(
    Config.validate({
      message: "must be a positive duration, e.g. 5s or \"5 seconds\"",
      validation: (d) => Duration.isFinite(d) && Duration.greaterThan(d, Duration.zero)
    }),
    Config.withDefault(fallback)
  )

/**
 * The settings from the environment: HOOKGATE_DATABASE_URL (a `postgres://` or
 * `postgresql://` URL, redacted: a refusal names the setting, never the value),
 * HOOKGATE_DB_POOL_SIZE (default 10), HOOKGATE_DB_STATEMENT_TIMEOUT (default 5 seconds),
 * HOOKGATE_DB_CONNECT_TIMEOUT (default 10 seconds). The Node gateway reads these.
 */
export const PgStoreConfig: Config.Config<PgStoreOptions> = Config.all({
  url: Config.string("HOOKGATE_DATABASE_URL").pipe(
    Config.validate({
      message: "must be a postgres:// or postgresql:// URL",
      validation: (url) => /^postgres(ql)?:\/\/[^/?#]/i.test(url)
    }),
    Config.map(Redacted.make)
  ),
  maxConnections: Config.integer("HOOKGATE_DB_POOL_SIZE").pipe(
    Config.validate({ message: "must be a positive number of connections", validation: (n) => n > 0 }),
    Config.withDefault(DEFAULT_MAX_CONNECTIONS)
  ),
  statementTimeout: positiveDuration("HOOKGATE_DB_STATEMENT_TIMEOUT", DEFAULT_STATEMENT_TIMEOUT),
  connectTimeout: positiveDuration("HOOKGATE_DB_CONNECT_TIMEOUT", DEFAULT_CONNECT_TIMEOUT)
})

/** `layer` with its options read from `config` (default: `PgStoreConfig`, the environment). */
export const layerConfig = (config: Config.Config<PgStoreOptions> = PgStoreConfig) =>
  Layer.unwrapEffect(Effect.map(config, layer))
