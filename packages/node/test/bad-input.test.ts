import Database from "better-sqlite3"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { baseEnv, type GatewayProcess, startGateway, tempDir } from "./support/gateway-process.js"
import { admin, deliver, post, signStripe, stripeBody } from "./support/webhooks.js"

/** The bad-input matrix over HTTP; an unverified request writes no row. */

let gateway: GatewayProcess
let dbPath: string

beforeAll(async () => {
  const env: Record<string, string> = { ...baseEnv(tempDir()), HOOKGATE_MAX_BODY: "4096" }
  dbPath = env["HOOKGATE_DB"]!
  gateway = await startGateway(env)
})
afterAll(() => gateway?.stop())

const rows = () => {
  const db = new Database(dbPath, { readonly: true })
  try {
    const count = (table: string) => (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n
    return { orders: count("hookgate_orders"), receipts: count("hookgate_receipts"), alerts: count("hookgate_alerts") }
  } finally {
    db.close()
  }
}

describe("bad input", () => {
  it("unverified requests answer their status and write nothing", async () => {
    const signed = await signStripe(stripeBody("bad"))
    const before = rows()
    expect(before).toEqual({ orders: 0, receipts: 0, alerts: 0 })
    const cases: Array<[string, Promise<{ status: number; body: Record<string, unknown> }>, number, string]> = [
      ["unknown provider", post(gateway.url, "/webhooks/paddle", signed), 404, "unknown_provider"],
      ["no signature", post(gateway.url, "/webhooks/stripe", { body: signed.body, headers: {} }), 401, "unauthorized"],
      ["bad signature", post(gateway.url, "/webhooks/stripe", { body: signed.body, headers: { "stripe-signature": "t=1,v1=00" } }), 401, "unauthorized"],
      ["tampered body", post(gateway.url, "/webhooks/stripe", { ...signed, body: signed.body.replace("bad@", "evil@") }), 401, "unauthorized"],
      ["oversized body", post(gateway.url, "/webhooks/stripe", { ...signed, body: "x".repeat(5000) }), 413, "too_large"]
    ]
    for (const [what, answer, status, body] of cases) {
      expect(await answer, what).toMatchObject({ status, body: { status: body } })
    }
    expect(rows()).toEqual(before)
  })

  it("a signed body that is not JSON is malformed and writes nothing", async () => {
    const before = rows()
    expect(await deliver(gateway.url, await signStripe("{not json"))).toMatchObject({ status: 400, body: { status: "malformed" } })
    expect(rows()).toEqual(before)
  })

  it("a conflicting replay is refused and leaves the order as it was", async () => {
    const first = await signStripe(stripeBody("twice", "buyer@example.com"))
    expect((await deliver(gateway.url, first)).body.status).toBe("sent")
    const before = await admin(gateway.url, `/admin/orders/${encodeURIComponent(first.orderKey)}`)
    const evil = await signStripe(stripeBody("twice", "mallory@example.com"))
    expect(await deliver(gateway.url, evil)).toEqual({ status: 409, body: { status: "conflict", orderId: first.orderKey } })
    const after = await admin(gateway.url, `/admin/orders/${encodeURIComponent(first.orderKey)}`)
    expect(after.body.order).toEqual(before.body.order)
    expect(after.body.receipts.map((r: { outcome: string }) => r.outcome)).toEqual(["conflict"])
  })

  it("admin routes answer 401 without the token, or with a wrong one", async () => {
    expect((await fetch(`${gateway.url}/admin/stats`)).status).toBe(401)
    expect((await admin(gateway.url, "/admin/stats", {}, "wrong")).status).toBe(401)
    expect((await fetch(`${gateway.url}/admin/sweep`, { method: "POST" })).status).toBe(401)
    expect((await admin(gateway.url, "/admin/stats")).status).toBe(200)
  })

  it("an order retry needs {\"confirm\": true} and only applies to capped or failed orders", async () => {
    const signed = await signStripe(stripeBody("retry-me"))
    await deliver(gateway.url, signed)
    const path = `/admin/orders/${encodeURIComponent(signed.orderKey)}/retry`
    expect(await admin(gateway.url, path, { method: "POST", body: "{}" })).toMatchObject({ status: 400, body: { status: "confirm_required" } })
    expect(await admin(gateway.url, path, { method: "POST", body: JSON.stringify({ confirm: true }) }))
      .toMatchObject({ status: 409, body: { status: "not_retryable" } })
    expect((await admin(gateway.url, "/admin/orders/stripe%3Anope")).status).toBe(404)
    expect((await admin(gateway.url, "/admin/orders?status=bogus")).status).toBe(400)
  })
})
