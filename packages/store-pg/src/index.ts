/**
 * @hookgate/store-pg: hookgate's store on PostgreSQL through `@effect/sql-pg`,
 * for several processes and machines sharing one database.
 */
export * as PgStore from "./pg-store.js"
export { describeTarget, layer, layerClient, layerConfig, PgStoreConfig, type PgStoreOptions } from "./pg-store.js"
export { PgConnectionError, PgMigrationError } from "./errors.js"
/** Every store service the Postgres layer provides (orders, leases, message and campaign ledgers). */
export type { SqlStoreServices } from "@hookgate/store-sql"
