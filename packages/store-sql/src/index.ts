/**
 * @hookgate/store-sql: the one SQL implementation of hookgate's storage and
 * leasing, on `@effect/sql`, portable across SQLite, D1 and Postgres.
 */
export { SqlAtomic } from "./atomic.js"
export { layerSqlStore, makeSqlStore } from "./sql-store.js"
export { loader, migrate, migrations, MIGRATIONS_TABLE } from "./migrations/index.js"
export { decodeAlert, decodeOrder, decodeReceipt } from "./rows.js"
