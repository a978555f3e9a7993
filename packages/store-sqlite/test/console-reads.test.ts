import { OrderStore } from "@hookgate/core"
import { SqliteStore } from "@hookgate/store-sqlite"
import Database from "better-sqlite3"
import { Effect } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"

/**
 * The console's order reads on 10⁶ orders: each filter, the search by key or email and the
 * next page answer in under 200 ms, from the indexes of migration 0005, not a scan.
 */
const ORDERS = 1_000_000
const T0 = 1_700_000_000_000

describe("the console's reads on a million orders (SQLite)", () => {
  it("filter, search and page from indexes, each in under 200 ms", async () => {
    const filename = join(mkdtempSync(join(tmpdir(), "hookgate-console-reads-")), "orders.db")
    const layer = SqliteStore.layer({ filename })
    // The store migrates the file; the rows go in with one statement.
    await Effect.runPromise(Effect.provide(Effect.flatMap(OrderStore, (store) => store.stats), layer))
    const db = new Database(filename)
    db.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${ORDERS})
INSERT INTO hookgate_orders (order_key, provider, event_id, event_type, email, product, amount, currency, metadata,
  payload_hash, status, attempts, next_attempt_at, uncertain, duplicates_prevented, possible_duplicates, leases_lost,
  created_at, updated_at)
SELECT 'stripe:cs_' || i, CASE i % 3 WHEN 0 THEN 'stripe' WHEN 1 THEN 'creem' ELSE 'paddle' END, 'evt_' || i,
  'checkout.session.completed', 'buyer' || (i % 200000) || '@example.com', NULL, 100, 'usd', '{}', 'sha256:x',
  CASE WHEN i % 1000 = 0 THEN 'capped' ELSE 'sent' END, 0, ${T0} + i, 0, 0, 0, 0, ${T0} + i, ${T0} + i FROM n`)
    for (const query of [
      "SELECT * FROM hookgate_orders WHERE status = 'capped' ORDER BY created_at DESC, order_key LIMIT 51",
      "SELECT * FROM hookgate_orders WHERE provider = 'creem' ORDER BY created_at DESC, order_key LIMIT 51",
      "SELECT * FROM hookgate_orders WHERE (order_key = 'x' OR email = 'buyer7@example.com' OR email = 'buyer7@example.com') ORDER BY created_at DESC, order_key LIMIT 51"
    ]) {
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${query}`).all() as Array<{ detail: string }>).map((row) => row.detail).join("; ")
      expect(plan, query).toMatch(/USING (COVERING )?INDEX|USING INTEGER PRIMARY KEY/)
      expect(plan, query).not.toMatch(/SCAN hookgate_orders(?! USING)/)
    }
    db.close()

    const timed = <A>(effect: Effect.Effect<A, unknown, OrderStore>) =>
      Effect.gen(function*() {
        const start = performance.now()
        const value = yield* effect
        return { value, ms: performance.now() - start }
      })
    const results = await Effect.runPromise(Effect.provide(
      Effect.flatMap(OrderStore, (store) =>
        Effect.all({
          newest: timed(store.list({ limit: 51 })),
          capped: timed(store.list({ status: "capped", limit: 51 })),
          creem: timed(store.list({ provider: "creem", limit: 51 })),
          byEmail: timed(store.list({ search: "Buyer7@Example.com", limit: 51 })),
          byKey: timed(store.list({ search: "stripe:cs_123456", limit: 51 })),
          nextPage: timed(store.list({ status: "capped", limit: 51, after: { createdAt: T0 + 999_000, key: "stripe:cs_999000" } }))
        })),
      layer
    ))
    expect(results.capped.value.every((o) => o.status === "capped")).toBe(true)
    expect(results.capped.value[0]!.key).toBe("stripe:cs_1000000")
    expect(results.creem.value.every((o) => o.provider === "creem")).toBe(true)
    expect(results.byEmail.value).toHaveLength(5) // buyer7 is every 200 000th order
    expect(results.byKey.value.map((o) => o.key)).toEqual(["stripe:cs_123456"])
    expect(results.nextPage.value[0]!.key).toBe("stripe:cs_998000")
    for (const [name, { ms }] of Object.entries(results)) expect(ms, name).toBeLessThan(200)
  }, 120_000)
})
