import { paidEvent, signTestRequest } from "@hookgate/testing"
import { Effect, Redacted } from "effect"
import { Miniflare } from "miniflare"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bundleWorker } from "./bundle.js"

/**
 * Two shops through one Worker script in Miniflare, each with its own secret, sender
 * and D1 database: neither can be reached with the other's secret, and each shop's
 * orders and emails land in its own database.
 */
const source = fileURLToPath(new URL("./tenants-worker/worker.ts", import.meta.url))
const SECRETS = { A: "whsec_shop_a_7f3e9c1d2b4a", B: "whsec_shop_b_0c8d6e2f4a1b" }

let mf: Miniflare
beforeAll(async () => {
  mf = new Miniflare({
    modules: [{ type: "ESModule", path: "worker.mjs", contents: await bundleWorker(source) }],
    compatibilityDate: "2026-04-20",
    d1Databases: { DB_A: "hookgate-shop-a", DB_B: "hookgate-shop-b" },
    bindings: { SECRET_A: SECRETS.A, SECRET_B: SECRETS.B, FROM_A: "Shop A <orders@a.example>", FROM_B: "Shop B <orders@b.example>" }
  })
  await mf.ready
}, 60_000)
afterAll(() => mf?.dispose())

const post = async (shop: "a" | "b", secret: string, orderId: string) => {
  const request = await Effect.runPromise(signTestRequest(
    Redacted.make(secret),
    paidEvent(`evt_${orderId}`, { orderId, email: `${orderId}@example.com`, amount: 100, currency: "usd" })
  ))
  const response = await mf.dispatchFetch(`http://platform/shops/${shop}/webhooks/test`, {
    method: "POST",
    headers: request.headers,
    body: new TextDecoder().decode(request.body)
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}
const rows = async (shop: "A" | "B", query: string) => (await (await mf.getD1Database(`DB_${shop}`)).prepare(query).all()).results

describe("two shops through one Worker script (Miniflare, real D1)", () => {
  it("each shop is reached only with its own secret; its orders and emails land in its own database", async () => {
    expect(await post("a", SECRETS.A, "a1")).toMatchObject({ status: 200, body: { status: "sent" } })
    expect(await post("b", SECRETS.B, "b1")).toMatchObject({ status: 200, body: { status: "sent" } })
    // The other shop's secret opens neither door, and writes nothing.
    expect((await post("b", SECRETS.A, "x1")).status).toBe(401)
    expect((await post("a", SECRETS.B, "x2")).status).toBe(401)
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) =>
      i % 2 === 0 ? post("a", SECRETS.A, `a${i + 2}`) : post("b", SECRETS.B, `b${i + 2}`)))
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 10 }, () => 200))

    const ordersA = (await rows("A", "SELECT order_key FROM hookgate_orders ORDER BY order_key")).map((r) => r.order_key)
    const ordersB = (await rows("B", "SELECT order_key FROM hookgate_orders ORDER BY order_key")).map((r) => r.order_key)
    expect(ordersA).toHaveLength(6)
    expect(ordersB).toHaveLength(6)
    expect(ordersA.every((key) => String(key).startsWith("test:a"))).toBe(true)
    expect(ordersB.every((key) => String(key).startsWith("test:b"))).toBe(true)
    const sendersA = new Set((await rows("A", "SELECT sender FROM test_emails")).map((r) => r.sender))
    const sendersB = new Set((await rows("B", "SELECT sender FROM test_emails")).map((r) => r.sender))
    expect([...sendersA]).toEqual(["Shop A <orders@a.example>"])
    expect([...sendersB]).toEqual(["Shop B <orders@b.example>"])
  })

  // Last: it drops shop B's orders table.
  it("GET /readyz reads each shop's D1: 200 while it answers, 503 once it does not, while /healthz stays 200", async () => {
    const get = async (path: string) => {
      const response = await mf.dispatchFetch(`http://platform${path}`)
      return { status: response.status, body: (await response.json()) as Record<string, unknown> }
    }
    expect(await get("/shops/a/readyz")).toEqual({ status: 200, body: { status: "ready" } })
    expect(await get("/shops/b/readyz")).toEqual({ status: 200, body: { status: "ready" } })
    await (await mf.getD1Database("DB_B")).prepare("DROP TABLE hookgate_orders").run()
    expect(await get("/shops/b/readyz")).toEqual({ status: 503, body: { status: "unavailable" } })
    expect(await get("/shops/b/healthz")).toMatchObject({ status: 200, body: { status: "ok" } })
    expect(await get("/shops/a/readyz")).toEqual({ status: 200, body: { status: "ready" } })
  })
})
