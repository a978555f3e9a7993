import type { D1ClientConfig } from "@effect/sql-d1/D1Client"

/**
 * A D1 binding (`env.DB`), as `@effect/sql-d1` types it. Miniflare's
 * `getD1Database` answers one too, so tests run against a real D1 from Node.
 */
export type D1Database = D1ClientConfig["db"]
