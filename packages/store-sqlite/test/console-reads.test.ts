import { OrderStore } from "@hookgate/core"
import { SqliteStore } from "@hookgate/store-sqlite"
import Database from "better-sqlite3"
import { Effect } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"

/**
 * The console's order reads on 10⁵ orders: each filter, the search by key or email and the
 * next page are answered from the indexes of migration 0005, not a scan (SQLite's query plan
 * says so, and it does not depend on the table's size: the store runs no ANALYZE), and
 * answer the right rows. No stopwatch: a loaded machine would make one flaky.
 */
const ORDERS = 100_000
/** Every EMAIL_EVERY-th order has the same buyer: buyer7 has five. */
const EMAIL_EVERY = ORDERS / 5
const T0 = 1_700_000_000_000

describe("the console's reads on many orders (SQLite)", () => {
  it("filter, search and page from indexes, and answer the right rows", async () => {
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
  'checkout.session.completed', 'buyer' || (i % ${EMAIL_EVERY}) || '@example.com', NULL, 100, 'usd', '{}', 'sha256:x',
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

    const results = await Effect.runPromise(Effect.provide(
      Effect.flatMap(OrderStore, (store) =>
        Effect.all({
          newest: store.list({ limit: 51 }),
          capped: store.list({ status: "capped", limit: 51 }),
          creem: store.list({ provider: "creem", limit: 51 }),
          byEmail: store.list({ search: "Buyer7@Example.com", limit: 51 }),
          byKey: store.list({ search: "stripe:cs_12345", limit: 51 }),
          nextPage: store.list({ status: "capped", limit: 51, after: { createdAt: T0 + ORDERS - 1000, key: `stripe:cs_${ORDERS - 1000}` } })
        })),
      layer
    ))
    expect(results.newest.map((o) => o.key).slice(0, 2)).toEqual([`stripe:cs_${ORDERS}`, `stripe:cs_${ORDERS - 1}`])
    expect(results.capped).toHaveLength(51)
    expect(results.capped.every((o) => o.status === "capped")).toBe(true)
    expect(results.capped[0]!.key).toBe(`stripe:cs_${ORDERS}`)
    expect(results.creem).toHaveLength(51)
    expect(results.creem.every((o) => o.provider === "creem")).toBe(true)
    expect(results.byEmail).toHaveLength(5) // buyer7 is every EMAIL_EVERY-th order, the search ignores case
    expect(results.byKey.map((o) => o.key)).toEqual(["stripe:cs_12345"])
    expect(results.nextPage[0]!.key).toBe(`stripe:cs_${ORDERS - 2000}`)
  }, 120_000)
})
