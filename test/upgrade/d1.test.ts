import { afterAll, beforeAll, expect, it } from "@effect/vitest"
import { D1Store } from "@hookgate/store-d1"
import Database from "better-sqlite3"
import { Effect } from "effect"
import { type D1Pool, startD1Pool, testDatabase } from "../../packages/store-d1/test/support.js"
import { checkEveryState, FIXTURE } from "./checks.js"

/**
 * The same fixture as a D1 database deployed with release fdd4f77: its tables and rows as
 * that release wrote them, its two migration files recorded in `d1_migrations` as wrangler
 * records them; then today's files applied in order (`applyMigrations`, which applies them
 * as `wrangler d1 migrations apply` does) and today's store opened on it.
 */
let pool: D1Pool
beforeAll(async () => {
  pool = await startD1Pool(1)
})
afterAll(() => pool?.dispose())

/** The fixture's schema and rows, copied statement by statement into `db`. */
const loadFixture = async (db: D1Store.D1Database) => {
  const source = new Database(FIXTURE, { readonly: true })
  try {
    const schema = source.prepare(
      "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' AND name <> 'hookgate_migrations' ORDER BY type DESC"
    ).all() as Array<{ type: string; name: string; sql: string }>
    await db.batch(schema.map((entry) => db.prepare(entry.sql)))
    for (const { name } of schema.filter((entry) => entry.type === "table")) {
      const rows = source.prepare(`SELECT * FROM ${name}`).all() as Array<Record<string, unknown>>
      if (rows.length === 0) continue
      const columns = Object.keys(rows[0]!)
      const insert = `INSERT INTO ${name} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`
      await db.batch(rows.map((row) => db.prepare(insert).bind(...columns.map((c) => row[c]))))
    }
    const applied = (source.prepare("SELECT migration_id, name FROM hookgate_migrations ORDER BY migration_id").all() as Array<{ migration_id: number; name: string }>)
      .map((m) => `${String(m.migration_id).padStart(4, "0")}_${m.name}.sql`)
    await db.prepare(
      "CREATE TABLE IF NOT EXISTS d1_migrations(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)"
    ).run()
    for (const name of applied) await db.prepare("INSERT INTO d1_migrations (name) VALUES (?)").bind(name).run()
    return applied
  } finally {
    source.close()
  }
}

it.effect("a D1 database deployed with release fdd4f77, upgraded by applying today's migration files in order, keeps every state", () =>
  Effect.gen(function*() {
    const db = testDatabase(yield* Effect.promise(() => pool.fresh()))
    expect(yield* Effect.promise(() => loadFixture(db))).toEqual(["0001_init.sql", "0002_queues_campaigns.sql"])
    const applied = yield* D1Store.applyMigrations(db)
    expect(applied).toEqual(D1Store.d1Migrations.slice(2).map((m) => m.name))
    yield* checkEveryState(D1Store.layer({ db }))
  }), 120_000)
