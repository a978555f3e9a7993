import { it } from "@effect/vitest"
import { SqlStore } from "@hookgate/store-sql"
import { SqliteStore } from "@hookgate/store-sqlite"
import Database from "better-sqlite3"
import { Effect } from "effect"
import { copyFileSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { expect } from "vitest"
import { checkEveryState, FIXTURE } from "./checks.js"


it.effect("a SQLite file written by release fdd4f77 opens with every order, alert and campaign, and today's code finishes them once", () =>
  Effect.gen(function*() {
    const filename = join(mkdtempSync(join(tmpdir(), "hookgate-upgrade-")), "hookgate.db")
    copyFileSync(FIXTURE, filename)
    const before = new Database(filename, { readonly: true })
    expect(before.prepare("SELECT migration_id FROM hookgate_migrations ORDER BY migration_id").all()).toEqual([
      { migration_id: 1 },
      { migration_id: 2 }
    ])
    // The release stored fractional times (a jittered backoff added to now).
    expect((before.prepare("SELECT COUNT(*) AS n FROM hookgate_orders WHERE typeof(next_attempt_at) = 'real'").get() as { n: number }).n)
      .toBeGreaterThan(0)
    before.close()
    yield* checkEveryState(SqliteStore.layer({ filename }))
    const after = new Database(filename, { readonly: true })
    expect(after.prepare("SELECT migration_id FROM hookgate_migrations ORDER BY migration_id").all())
      .toEqual(SqlStore.migrations.map((m) => ({ migration_id: m.id })))
    after.close()
  }), 60_000)
