import * as SqlClient from "@effect/sql/SqlClient"
import { it } from "@effect/vitest"
import { AlertStore } from "@hookgate/core/alerts"
import { SqliteStore } from "@hookgate/store-sqlite"
import { Effect } from "effect"
import { expect } from "vitest"

// A database migrated by this release, written by an older one during a rollback: the
// older release's own statements (release fdd4f77, packages/store-sql/src/sql-store.ts),
// which know neither `attempts` nor `next_attempt_at`.
const T0 = 1_700_000_000_000
const LEASE = 300_000

it.effect("alerts an older release stores and records after this release migrated are due for this release's sweep", () =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const insert = (id: string) =>
      sql`INSERT INTO hookgate_alerts (alert_id, kind, order_key, message, created_at, delivered_at, delivery_error)
VALUES (${id}, 'capped', 'stripe:o1', 'capped', ${T0}, NULL, NULL) ON CONFLICT (alert_id) DO NOTHING RETURNING alert_id`
    yield* insert("never-attempted")
    yield* insert("failed")
    yield* insert("delivered")
    yield* sql`UPDATE hookgate_alerts SET delivery_error = ${"channel down"} WHERE alert_id = ${"failed"}`
    yield* sql`UPDATE hookgate_alerts SET delivered_at = ${T0 + 5}, delivery_error = NULL WHERE alert_id = ${"delivered"}`
    const store = yield* AlertStore
    const now = T0 + LEASE
    const claimed = yield* store.claimDue(now, { limit: 10, until: now + LEASE, maxAttempts: 8, staleBefore: now - LEASE })
    expect(claimed.map((a) => [a.id, a.attempts, a.deliveryError]).sort()).toEqual([
      ["failed", 0, "channel down"],
      ["never-attempted", 0, null]
    ])
  }).pipe(Effect.provide(SqliteStore.layer({ filename: ":memory:" }))))
