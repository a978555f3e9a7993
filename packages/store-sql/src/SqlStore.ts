import { layerSqlStore, makeSqlStoreServices } from "./sql-store.js"

/**
 * Every hookgate store port (`SqlStoreServices`) on the `SqlClient` and `SqlAtomic` in
 * context, as one `Context` (what `layer()` provides). Run `migrate` first.
 */
export const make = () => makeSqlStoreServices

/**
 * Every hookgate store port (`SqlStoreServices`) on the `SqlClient` and `SqlAtomic`
 * in context: store-sqlite and store-d1 are this layer on their own client.
 * Run `migrate` (or apply the migrations) first.
 */
export const layer = () => layerSqlStore

export { SqlAtomic } from "./atomic.js"
export { DirectStatements, type DirectStatementsShape } from "./compiled.js"
export { loader, type Migration, migrations, MIGRATIONS_TABLE, sqliteStatements } from "./migrations/index.js"
export { migrate } from "./migrate.js"
export { checkSchemaVersion, NEWEST_MIGRATION, refuseNewer } from "./schema-version.js"
export { storedTimes, TIME_COLUMNS } from "./stored-times.js"
