/**
 * @hookgate/store-pg: hookgate's store on PostgreSQL through `@effect/sql-pg`,
 * for several processes and machines sharing one database. One namespace:
 * `PgStore.layer(options)`, `PgStore.layerConfig(config?)`, its errors.
 */
export * as PgStore from "./PgStore.js"
