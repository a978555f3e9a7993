/**
 * @hookgate/store-sql: the one SQL implementation of hookgate's storage and
 * leasing, on `@effect/sql`, portable across SQLite, D1 and Postgres. One
 * namespace: `SqlStore.layer()`, `SqlStore.SqlAtomic`, `SqlStore.migrate`,
 * `SqlStore.migrations`.
 */
export * as SqlStore from "./store.js"
/** Every store port `SqlStore.layer()` provides (also as `SqlStore.SqlStoreServices`); at the root so declaration files can name it. */
export type { SqlStoreServices } from "./sql-store.js"
/** Also `SqlStore.SchemaTooNew`; at the root so declaration files of the stores' layers can name it. */
export { SchemaTooNew } from "./schema-version.js"
