/**
 * @hookgate/store-sqlite: the embedded default store for Node, on better-sqlite3.
 * One namespace: `SqliteStore.make({ filename })`, `SqliteStore.layer({ filename })`,
 * `SqliteStore.layerConfig(config?)`.
 */
export * as SqliteStore from "./SqliteStore.js"
