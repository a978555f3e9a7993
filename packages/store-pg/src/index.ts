/**
 * @hookgate/store-pg: hookgate's store on PostgreSQL through `@effect/sql-pg`,
 * for several processes and machines sharing one database. One namespace:
 * `PgStore.make(options)`, `PgStore.layer(options)`, `PgStore.layerConfig(config?)`,
 * `PgStore.PgStoreConfig`, its errors.
 */
export * as PgStore from "./PgStore.js"
