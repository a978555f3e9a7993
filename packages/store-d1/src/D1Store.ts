/**
 * hookgate's store on D1: `make({ db, migrate? })` builds every store port (scoped),
 * `layer({ db, migrate? })` provides them,
 * `layerClient` only the `@effect/sql-d1` client, `layerBatchAtomic()` the D1
 * `batch()` behind store-sql's atomic steps; the migrations as wrangler files.
 */
export { layer, layerClient, make, type D1StoreOptions } from "./d1-store.js"
export { layerBatchAtomic } from "./batch-atomic.js"
export { applyMigrations, type ApplyMigrationsOptions } from "./apply-migrations.js"
export { D1_MIGRATIONS_TABLE, type D1Migration, d1Migrations, renderMigrationFile } from "./migrations.js"
export { D1MigrationError } from "./errors.js"
/** A D1 database whose recorded migrations go past this release's: refused when the layer is built (store-sql's error). */
export { checkSchemaVersion } from "./schema-version.js"
export type { D1Database } from "./database.js"
