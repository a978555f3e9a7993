/**
 * @hookgate/store-d1: hookgate's store on Cloudflare D1 through `@effect/sql-d1`,
 * with D1 migrations as `.sql` files for `wrangler d1 migrations apply`.
 */
export * as D1Store from "./d1-store.js"
export { layer, layerClient, type D1StoreOptions } from "./d1-store.js"
export { layerBatchAtomic } from "./batch-atomic.js"
export { applyMigrations, type ApplyMigrationsOptions } from "./apply-migrations.js"
export { D1_MIGRATIONS_TABLE, type D1Migration, d1Migrations, renderMigrationFile } from "./migrations.js"
export { D1MigrationError } from "./errors.js"
export type { D1Database } from "./database.js"
/** Every store service the D1 layer provides (orders, leases, message and campaign ledgers). */
export type { SqlStoreServices } from "@hookgate/store-sql"
