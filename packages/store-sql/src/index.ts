/**
 * @hookgate/store-sql: the one SQL implementation of hookgate's storage and
 * leasing, on `@effect/sql`, portable across SQLite, D1 and Postgres. One
 * namespace: `SqlStore.make()`, `SqlStore.layer()`, `SqlStore.SqlAtomic`, `SqlStore.migrate`,
 * `SqlStore.migrations`.
 */
export * as SqlStore from "./SqlStore.js"
/**
 * Every store port `SqlStore.layer()` provides. Its one spelling, at the root: declaration
 * files name it from here (a type inside the namespace is not reachable for them).
 */
export type { SqlStoreServices } from "./sql-store.js"
/** A database recording a migration this release does not know: an error class, so a flat name at the root. */
export { SchemaTooNew } from "./schema-version.js"
