/**
 * @hookgate/store-sqlite: the embedded default store for Node, on better-sqlite3.
 */
export * as SqliteStore from "./sqlite-store.js"
export { layer, layerConfig, layerSqliteClient, type SqliteStoreOptions } from "./sqlite-store.js"
