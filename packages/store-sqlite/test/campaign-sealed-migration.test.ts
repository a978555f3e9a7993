import { it } from "@effect/vitest"
import { CampaignStore } from "@hookgate/core/campaigns"
import { SqlStore } from "@hookgate/store-sql"
import { SqliteStore } from "@hookgate/store-sqlite"
import Database from "better-sqlite3"
import { Effect, Option } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { expect } from "vitest"

/**
 * Migration 0010 on campaigns an older release wrote: each counts as sealed (its list complete,
 * as that release treated it), and a draft's total and batch slots are counted from its rows,
 * as that release's `start` did, so it starts with its whole list.
 */
it.effect("campaigns from before migration 0010 are sealed; a draft is counted from its rows and starts", () =>
  Effect.gen(function*() {
    const filename = join(mkdtempSync(join(tmpdir(), "hookgate-sealed-")), "hookgate.db")
    yield* Effect.provide(Effect.void, SqliteStore.layer({ filename }))
    // The schema as it was before 0010, with a draft whose create stopped before counting its 250 rows.
    // Every table dropped, then migrations 1-9 applied again and recorded as the Migrator does:
    // later migrations (0011 on) would otherwise stay recorded, and the Migrator never runs an id below the newest.
    const db = new Database(filename)
    const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'
AND name NOT IN ('${SqlStore.MIGRATIONS_TABLE}', 'sqlite_sequence')`).pluck().all() as Array<string>
    for (const table of tables) db.exec(`DROP TABLE ${table}`)
    db.prepare(`DELETE FROM ${SqlStore.MIGRATIONS_TABLE}`).run()
    for (const migration of SqlStore.migrations.filter((m) => m.id < 10)) {
      for (const statement of migration.statements) db.exec(statement)
      db.prepare(`INSERT INTO ${SqlStore.MIGRATIONS_TABLE} (migration_id, name) VALUES (?, ?)`).run(migration.id, migration.name)
    }
    db.prepare(`INSERT INTO hookgate_campaigns (campaign_id, template, state, total, batch_size, batches, duplicates_prevented, created_at, updated_at)
VALUES ('old', '{"from":"a@shop.example","subject":"s","text":"t"}', 'draft', 0, 100, 0, 0, 1, 1)`).run()
    const insert = db.prepare(`INSERT INTO hookgate_campaign_recipients (campaign_id, seq, email, status, attempts, uncertain, solo)
VALUES ('old', ?, ?, 'queued', 0, 0, 0)`)
    for (let i = 0; i < 250; i++) insert.run(i, `r${i}@example.com`)
    db.close()
    const row = yield* Effect.flatMap(CampaignStore, (store) => store.get("old")).pipe(Effect.provide(SqliteStore.layer({ filename })))
    expect(Option.getOrThrow(row)).toMatchObject({ state: "draft", sealed: true, total: 250, batches: 3 })
    const started = yield* Effect.flatMap(CampaignStore, (store) =>
      store.transition("old", { from: ["draft"], to: "running", now: 2, whileSealed: true })).pipe(
        Effect.provide(SqliteStore.layer({ filename }))
      )
    expect(Option.map(started, (r) => r.state)).toEqual(Option.some("running"))
  }))
