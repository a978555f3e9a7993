import { it } from "@effect/vitest"
import { SqlStore } from "@hookgate/store-sql"
import { SqliteStore } from "@hookgate/store-sqlite"
import Database from "better-sqlite3"
import { Effect } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { expect } from "vitest"

// A file at migration 4, as the releases before whole milliseconds left it: a jittered
// retry added to `now` was stored as a REAL.
const atMigration4 = () => {
  const filename = join(mkdtempSync(join(tmpdir(), "hookgate-millis-")), "hookgate.db")
  const db = new Database(filename)
  db.exec(`CREATE TABLE hookgate_migrations (migration_id integer PRIMARY KEY NOT NULL,
    created_at datetime NOT NULL DEFAULT current_timestamp, name VARCHAR(255) NOT NULL)`)
  for (const migration of SqlStore.migrations.filter((m) => m.id <= 4)) {
    for (const statement of migration.statements) db.exec(statement)
    db.prepare("INSERT INTO hookgate_migrations (migration_id, name) VALUES (?, ?)").run(migration.id, migration.name)
  }
  const T = 1_700_000_000_000.75
  db.prepare(`INSERT INTO hookgate_orders (order_key, provider, event_id, event_type, email, product, amount, currency,
    metadata, payload_hash, status, attempts, next_attempt_at, lease_expires_at, uncertain, duplicates_prevented,
    possible_duplicates, leases_lost, created_at, updated_at)
    VALUES ('stripe:o1', 'stripe', 'evt_1', 't', 'a@example.com', NULL, 1, 'usd', '{}', 'h', 'pending', 1, ?, ?, 0, 0, 0, 0, ?, ?)`)
    .run(T + 61_234.5, T + 300_000.25, T, T + 0.5)
  db.prepare(`INSERT INTO hookgate_receipts (provider, event_id, event_type, order_key, outcome, received_at, last_seen_at, deliveries)
    VALUES ('stripe', 'evt_2', 't', 'stripe:o1', 'replayed', ?, ?, 1)`).run(T, T + 1)
  db.prepare(`INSERT INTO hookgate_alerts (alert_id, kind, order_key, message, created_at, delivered_at, delivery_error, attempts, next_attempt_at)
    VALUES ('a1', 'capped', 'stripe:o1', 'm', ?, NULL, 'down', 1, ?)`).run(T, T + 60_000.9)
  db.prepare(`INSERT INTO hookgate_messages (message_key, status, lease_token, lease_expires_at, attempts, last_error, runs, duplicates, created_at, updated_at, completed_at)
    VALUES ('m1', 'done', NULL, ?, 1, NULL, 1, 0, ?, ?, ?)`).run(T, T, T, T + 2)
  const fractions = db.prepare("SELECT COUNT(*) AS n FROM hookgate_orders WHERE typeof(next_attempt_at) = 'real'").get() as { n: number }
  db.close()
  expect(fractions.n).toBe(1)
  return filename
}

it.effect("migration 5 floors the fractional times an older release stored, and leaves whole ones and NULLs as they were", () =>
  Effect.gen(function*() {
    const filename = atMigration4()
    const times = yield* SqlStore.storedTimes.pipe(Effect.provide(SqliteStore.layer({ filename })))
    const present = times.filter((t) => t !== null)
    expect(present.length).toBe(12)
    for (const time of present) expect(Number.isInteger(time), `${String(time)} is whole`).toBe(true)
    const db = new Database(filename, { readonly: true })
    expect(db.prepare("SELECT next_attempt_at, lease_expires_at, created_at, updated_at, sent_at FROM hookgate_orders").get()).toEqual({
      next_attempt_at: 1_700_000_061_235,
      lease_expires_at: 1_700_000_300_001,
      created_at: 1_700_000_000_000,
      updated_at: 1_700_000_000_001,
      sent_at: null
    })
    expect(db.prepare("SELECT typeof(next_attempt_at) AS t FROM hookgate_alerts").get()).toEqual({ t: "integer" })
    db.close()
  }))
