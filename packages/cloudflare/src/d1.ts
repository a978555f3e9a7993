import type * as SqlClient from "@effect/sql/SqlClient"
import type { D1Client } from "@effect/sql-d1"
import { D1Store } from "@hookgate/store-d1"
import type { SchemaTooNew, SqlStoreServices } from "@hookgate/store-sql"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { binding, type WorkerEnv } from "./env.js"
import type { MissingBinding } from "./errors.js"

/** Which D1 binding, and whether to migrate on start. */
export interface D1BindingOptions {
  /** The D1 binding's name in wrangler.jsonc (default `DB`). */
  readonly binding?: string
  /**
   * Apply pending migrations when the isolate starts (one read of `d1_migrations`
   * per isolate once applied). Default false: `wrangler d1 migrations apply`.
   */
  readonly migrate?: boolean
}

/** The D1 binding from `env`. */
export const d1Binding = (name = "DB") => binding<D1Store.D1Database>(name, "prepare", "batch")

/** hookgate's D1 store on the binding named in `options` (default `DB`). */
export const layerD1Store = (
  options: D1BindingOptions = {}
): Layer.Layer<
  SqlStoreServices | SqlClient.SqlClient | D1Client.D1Client,
  MissingBinding | D1Store.D1MigrationError | SchemaTooNew,
  WorkerEnv
> =>
  Layer.unwrapEffect(
    Effect.map(d1Binding(options.binding), (db) => D1Store.layer({ db, migrate: options.migrate ?? false }))
  )
