import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { D1Store } from "@hookgate/store-d1"
import { SchemaTooNew, SqlStore } from "@hookgate/store-sql"
import { Effect, Layer } from "effect"
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { type D1Pool, startD1Pool, testDatabase } from "./support.js"

const dir = join(import.meta.dirname, "..", "migrations")
const names = D1Store.d1Migrations.map((m) => m.name)

let pool: D1Pool
beforeAll(async () => {
  pool = await startD1Pool(10)
})
afterAll(() => pool?.dispose())

describe("D1 migrations", () => {
  it("the .sql files are store-sql's migrations, named as wrangler expects", () => {
    if (process.env.HOOKGATE_WRITE_MIGRATIONS === "1") {
      for (const migration of D1Store.d1Migrations) writeFileSync(join(dir, migration.name), D1Store.renderMigrationFile(migration))
    }
    expect(D1Store.d1Migrations.map((m) => m.name)).toEqual(SqlStore.migrations.map((m) => `${String(m.id).padStart(4, "0")}_${m.name}.sql`))
    expect(readdirSync(dir).filter((f) => f.endsWith(".sql")).sort()).toEqual(D1Store.d1Migrations.map((m) => m.name))
    for (const migration of D1Store.d1Migrations) {
      expect(readFileSync(join(dir, migration.name), "utf8"), `${migration.name} is stale: run with HOOKGATE_WRITE_MIGRATIONS=1`)
        .toBe(D1Store.renderMigrationFile(migration))
    }
    expect(D1Store.d1Migrations[0]!.name).toBe("0001_init.sql")
  })

  it.effect("applyMigrations applies each file once and records it in d1_migrations", () =>
    Effect.gen(function*() {
      const db = yield* Effect.promise(() => pool.fresh())
      expect(yield* D1Store.applyMigrations(db)).toEqual(names)
      expect(yield* D1Store.applyMigrations(db)).toEqual([])
      const recorded = yield* Effect.promise(() => db.prepare(`SELECT id, name, applied_at FROM ${D1Store.D1_MIGRATIONS_TABLE} ORDER BY id`).all())
      expect(recorded.results).toEqual(names.map((name, i) => ({ id: i + 1, name, applied_at: expect.any(String) })))
      const tables = yield* Effect.promise(() =>
        db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'hookgate_%' ORDER BY name").all()
      )
      expect(tables.results.map((t) => t["name"])).toEqual(
        expect.arrayContaining(["hookgate_alerts", "hookgate_orders", "hookgate_receipts"])
      )
    }))

  it.effect("a migration already applied as wrangler applies it (the file, then its record) is left alone", () =>
    Effect.gen(function*() {
      const db = yield* Effect.promise(() => pool.fresh())
      // What `wrangler d1 migrations apply` runs: its table, then the file's text and the record together.
      yield* Effect.promise(() =>
        db.exec(`CREATE TABLE IF NOT EXISTS d1_migrations(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL);`)
      )
      for (const name of names) {
        const file = readFileSync(join(dir, name), "utf8")
        const statements = file.split(/;\s*$/m).map((s) => s.replace(/^--.*$/gm, "").trim()).filter((s) => s !== "")
        yield* Effect.promise(() =>
          db.batch([
            ...statements.map((s) => db.prepare(s)),
            db.prepare(`INSERT INTO d1_migrations (name) values ('${name}')`)
          ])
        )
      }
      expect(yield* D1Store.applyMigrations(db)).toEqual([])
    }))

  it.effect("a database that records a newer release's migration is refused by applyMigrations and by the layer, naming both versions", () =>
    Effect.gen(function*() {
      const db = yield* Effect.promise(() => pool.fresh())
      yield* D1Store.applyMigrations(db)
      const newest = SqlStore.migrations[SqlStore.migrations.length - 1]!
      const future = `${String(newest.id + 1).padStart(4, "0")}_from_a_newer_release.sql`
      // What `wrangler d1 migrations apply` of a newer release records.
      yield* Effect.promise(() => db.prepare(`INSERT INTO d1_migrations (name) VALUES (?)`).bind(future).run())
      for (
        const attempt of [
          Effect.asVoid(D1Store.applyMigrations(db)),
          Effect.asVoid(Layer.build(D1Store.layer({ db })).pipe(Effect.scoped)),
          Effect.asVoid(Layer.build(D1Store.layer({ db, migrate: true })).pipe(Effect.scoped))
        ]
      ) {
        const error = yield* Effect.flip(attempt)
        expect(error).toBeInstanceOf(SchemaTooNew)
        expect(error).toMatchObject({ found: { id: newest.id + 1, name: "from_a_newer_release" }, known: { id: newest.id } })
        expect((error as Error).message).toMatch(/Upgrade hookgate .*or restore the backup/)
      }
    }))

  it.effect("the layer without migrate starts on a database wrangler has not touched yet, and on a current one", () =>
    Effect.gen(function*() {
      const db = yield* Effect.promise(() => pool.fresh())
      yield* Layer.build(D1Store.layer({ db })).pipe(Effect.scoped)
      yield* D1Store.applyMigrations(db)
      yield* Layer.build(D1Store.layer({ db })).pipe(Effect.scoped)
    }))

  it.effect("a failing migration leaves nothing behind, not even its record", () =>
    Effect.gen(function*() {
      const db = yield* Effect.promise(() => pool.fresh())
      const broken = [{ name: "0001_broken.sql", statements: ["CREATE TABLE hookgate_x (a TEXT)", "INSERT INTO nowhere VALUES (1)"] }]
      const error = yield* Effect.flip(D1Store.applyMigrations(db, { migrations: broken }))
      expect(error._tag).toBe("D1MigrationError")
      expect(error._tag === "D1MigrationError" && error.migration).toBe("0001_broken.sql")
      const left = yield* Effect.promise(() =>
        db.prepare("SELECT name FROM sqlite_master WHERE name = 'hookgate_x'").all()
      )
      expect(left.results).toEqual([])
      const recorded = yield* Effect.promise(() => db.prepare("SELECT name FROM d1_migrations").all())
      expect(recorded.results).toEqual([])
    }))

  it.effect("two isolates migrating one fresh database at once both succeed, and it is applied once", () =>
    Effect.gen(function*() {
      // Serialised per statement (see testDatabase), so the two still interleave statement by statement.
      const db = testDatabase(yield* Effect.promise(() => pool.fresh()))
      const [a, b] = yield* Effect.all([D1Store.applyMigrations(db), D1Store.applyMigrations(db)], { concurrency: 2 })
      expect([...a, ...b].sort()).toEqual(names)
      const recorded = yield* Effect.promise(() => db.prepare("SELECT name FROM d1_migrations").all())
      expect(recorded.results).toHaveLength(names.length)
    }))
})
