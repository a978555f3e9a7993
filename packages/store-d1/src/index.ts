/**
 * @hookgate/store-d1: hookgate's store on Cloudflare D1 through `@effect/sql-d1`,
 * with D1 migrations as `.sql` files for `wrangler d1 migrations apply`. One
 * namespace: `D1Store.layer({ db })`, `D1Store.applyMigrations`, `D1Store.d1Migrations`.
 */
export * as D1Store from "./D1Store.js"
