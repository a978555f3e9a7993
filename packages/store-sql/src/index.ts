/**
 * @hookgate/store-sql: the one SQL implementation of hookgate's storage and
 * leasing, on `@effect/sql`, portable across SQLite, D1 and Postgres.
 */
export { SqlAtomic } from "./atomic.js"
export { layerSqlStore, makeSqlStore, type SqlStoreServices } from "./sql-store.js"
export { makeSqlDeadLetters, makeSqlMessageLedger } from "./sql-messages.js"
export { makeSqlCampaignStore } from "./sql-campaigns.js"
export { loader, migrate, migrations, MIGRATIONS_TABLE } from "./migrations/index.js"
export { decodeAlert, decodeOrder, decodeReceipt } from "./rows.js"
