import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import { D1Client } from "@effect/sql-d1"
import { SchemaTooNew, SqlStore, type SqlStoreServices } from "@hookgate/store-sql"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { applyMigrations } from "./apply-migrations.js"
import { batchAtomic } from "./batch-atomic.js"
import * as DirectStatements from "./direct-statements.js"
import type { D1Database } from "./database.js"
import type { D1MigrationError } from "./errors.js"
import { D1_MIGRATIONS_TABLE } from "./migrations.js"
import { checkSchemaVersion } from "./schema-version.js"

/** The D1 binding, and whether to migrate when the layer is built. */
export interface D1StoreOptions {
  /** The D1 binding, e.g. `env.DB`. */
  readonly db: D1Database
  /**
   * Apply pending migrations when the layer is built (tests, first runs).
   * Default false: apply them with `wrangler d1 migrations apply` before deploying.
   */
  readonly migrate?: boolean
  /**
   * Where the applied migrations are recorded: wrangler's `migrations_table`, default
   * `d1_migrations`. Read when the layer is built, to refuse a schema newer than this
   * release knows (`SchemaTooNew`).
   */
  readonly migrationsTable?: string
}

/** `@effect/sql-d1`'s client on the binding, with migrations applied first when asked. */
export const layerClient = (
  options: D1StoreOptions
): Layer.Layer<D1Client.D1Client | SqlClient.SqlClient, D1MigrationError | SchemaTooNew> => {
  // Plain options: the ConfigError in D1Client.layer's type cannot happen.
  const client = Layer.orDie(D1Client.layer({ db: options.db }))
  return Layer.provideMerge(client, Layer.effectDiscard(migrateOrCheck(options)))
}

/** Applies the pending migrations when asked (refusing a newer schema), else only checks the schema is not newer. */
const migrateOrCheck = (options: D1StoreOptions) => {
  const table = options.migrationsTable ?? D1_MIGRATIONS_TABLE
  return options.migrate === true
    ? Effect.asVoid(applyMigrations(options.db, { table }))
    : checkSchemaVersion(options.db, table)
}

/**
 * Every hookgate store service (`OrderStore`, `Lease`, and the message and
 * campaign ledgers) on Cloudflare D1, with the `D1Client` and `SqlClient` they run on,
 * as one `Context`: store-sql's protocol, unchanged, over `@effect/sql-d1`. Every lease
 * step is one statement; the steps that must stand or fall together run as one D1
 * `batch()`. The store's compiled statements (the receive path and the sweep) run on the
 * binding directly (`direct-statements.ts`). Migrations are applied (or the schema
 * checked) first.
 */
export const make = (
  options: D1StoreOptions
): Effect.Effect<
  Context.Context<SqlStoreServices | D1Client.D1Client | SqlClient.SqlClient>,
  D1MigrationError | SchemaTooNew,
  Scope.Scope
> =>
  Effect.gen(function*() {
    yield* migrateOrCheck(options)
    const client = yield* D1Client.make({ db: options.db }).pipe(
      Effect.provideServiceEffect(Reactivity.Reactivity, Reactivity.make)
    )
    const clients = Context.make(D1Client.D1Client, client).pipe(Context.add(SqlClient.SqlClient, client))
    const stores = yield* SqlStore.make().pipe(
      Effect.provide(clients.pipe(
        Context.add(SqlStore.SqlAtomic, batchAtomic(client)),
        Context.add(SqlStore.DirectStatements, DirectStatements.make(options.db))
      ))
    )
    return Context.merge(clients, stores)
  })

/**
 * `make` as a layer. Built as one layer step (migrations, client, `SqlAtomic`, stores)
 * rather than `SqlStore.layer()` provided with `layerBatchAtomic()` and `layerClient`:
 * each `Layer.provide`/`provideMerge` is a memoized step of its own when the layer is
 * built, which a Worker pays on an isolate's first request.
 */
export const layer = (
  options: D1StoreOptions
): Layer.Layer<
  SqlStoreServices | D1Client.D1Client | SqlClient.SqlClient,
  D1MigrationError | SchemaTooNew
> => Layer.scopedContext(make(options))
