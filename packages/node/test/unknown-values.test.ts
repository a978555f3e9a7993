import Database from "better-sqlite3"
import { describe, expect, it } from "vitest"
import { ADMIN_TOKEN, baseEnv, runCli, startGateway, tempDir } from "./support/gateway-process.js"

/**
 * Rolled back after an upgrade: rows a newer release wrote carry enum values this one
 * does not know. The CLI and the admin API show them as unknown instead of failing.
 */
const T0 = 1_700_000_000_000

const seedNewerRows = (filename: string) => {
  const db = new Database(filename)
  db.prepare(`INSERT INTO hookgate_orders (order_key, provider, event_id, event_type, email, product, amount, currency,
    metadata, payload_hash, status, attempts, next_attempt_at, uncertain, duplicates_prevented, possible_duplicates,
    leases_lost, created_at, updated_at)
    VALUES ('stripe:o1', 'stripe', 'evt_1', 'checkout.session.completed', 'a@example.com', NULL, 1900, 'usd', '{}', 'h',
    'refunded', 0, ?, 0, 0, 0, 0, ?, ?)`).run(T0, T0, T0)
  db.prepare(`INSERT INTO hookgate_receipts (provider, event_id, event_type, order_key, outcome, received_at, last_seen_at, deliveries)
    VALUES ('stripe', 'evt_2', 'charge.refunded', 'stripe:o1', 'refund_recorded', ?, ?, 1)`).run(T0 + 1, T0 + 1)
  db.prepare(`INSERT INTO hookgate_alerts (alert_id, kind, order_key, message, created_at, delivered_at, delivery_error, attempts)
    VALUES ('a1', 'chargeback_opened', 'stripe:o1', 'a chargeback was opened', ?, ?, NULL, 1)`).run(T0 + 2, T0 + 3)
  db.close()
}

describe("values a newer release wrote", () => {
  it("the CLI and the admin API show an unknown order status, receipt outcome and alert kind as unknown", async () => {
    const dir = tempDir()
    const env = baseEnv(dir)
    expect((await runCli(env, ["orders", "list"])).code).toBe(0)
    seedNewerRows(env.HOOKGATE_DB!)

    const list = await runCli(env, ["orders", "list"])
    expect(list.code, list.stderr).toBe(0)
    expect(list.stdout).toMatch(/stripe:o1.*unknown/)
    const show = await runCli(env, ["orders", "show", "stripe:o1"])
    expect(show.code, show.stderr).toBe(0)
    expect(show.stdout).toContain("unknown")
    const alerts = await runCli(env, ["alerts", "list"])
    expect(alerts.code, alerts.stderr).toBe(0)
    expect(alerts.stdout).toMatch(/unknown .*stripe:o1/)

    const gateway = await startGateway({ ...env, HOOKGATE_SWEEP_EVERY: "1 hour" })
    try {
      const get = async (path: string) => {
        const response = await fetch(`${gateway.url}${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
        return { status: response.status, body: await response.json() as Record<string, any> }
      }
      const orders = await get("/admin/orders")
      expect(orders.status).toBe(200)
      expect(orders.body.orders.map((o: { key: string; status: string }) => [o.key, o.status])).toEqual([["stripe:o1", "unknown"]])
      const one = await get("/admin/orders/stripe:o1")
      expect(one.status).toBe(200)
      expect(JSON.stringify(one.body)).toContain(`"outcome":"unknown"`)
      const stored = await get("/admin/alerts")
      expect(stored.status).toBe(200)
      expect(stored.body.alerts.map((a: { id: string; kind: string }) => [a.id, a.kind])).toEqual([["a1", "unknown"]])
      const stats = await get("/admin/stats")
      expect(stats.status).toBe(200)
      expect(stats.body.orders).toMatchObject({ unknown: 1, pending: 0 })
    } finally {
      await gateway.stop()
    }
  }, 120_000)
})
