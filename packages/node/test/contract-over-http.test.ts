import { startResendTestServer, type ResendTestServerShape } from "@hookgate/mailer-resend/testing"
import Database from "better-sqlite3"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { baseEnv, type GatewayProcess, resendEnv, startGateway, tempDir } from "./support/gateway-process.js"
import { admin, creemBody, creemOtherBody, deliver, post, signCreem, signStripe, stripeBody } from "./support/webhooks.js"

/** The HTTP contract (docs/http-contract.md) over real HTTP, against a spawned `hookgate serve` mailing through Resend's test server. */

let resend: ResendTestServerShape
let gateway: GatewayProcess
let dbPath: string

beforeAll(async () => {
  resend = await startResendTestServer()
  const dir = tempDir()
  const env: Record<string, string> = {
    ...baseEnv(dir),
    ...resendEnv(resend),
    HOOKGATE_MAX_ATTEMPTS: "2",
    // A replay waits for the durable backoff; 1 ms lets the provider's next copy retry at once.
    HOOKGATE_RETRY_BACKOFF: "1 millis",
    HOOKGATE_OWNER_EMAIL: "owner@example.com",
    HOOKGATE_FROM: "Shop <orders@example.com>",
    HOOKGATE_DB_BUSY_TIMEOUT: "200 millis"
  }
  dbPath = env["HOOKGATE_DB"]!
  gateway = await startGateway(env)
})
afterAll(async () => {
  await gateway?.stop()
  await resend?.close()
})

const providers = [
  { name: "stripe", paying: (id: string, email?: string) => signStripe(stripeBody(id, email)), other: (id: string) => signStripe(stripeBody(id, undefined, "checkout.session.expired")) },
  { name: "creem", paying: (id: string, email?: string) => signCreem(creemBody(id, email)), other: (id: string) => signCreem(creemOtherBody(id)) }
] as const

describe.each(providers)("the contract over HTTP: $name", ({ name, other, paying }) => {
  it("200 sent, then 200 duplicate for a replay; the server has one email", async () => {
    const signed = await paying(`${name}-sent`)
    expect(await deliver(gateway.url, signed)).toEqual({ status: 200, body: { status: "sent", orderId: signed.orderKey } })
    expect(await deliver(gateway.url, signed)).toEqual({ status: 200, body: { status: "duplicate", orderId: signed.orderKey } })
    expect(resend.emails.filter((e) => e.idempotencyKey === `hookgate/order/${signed.orderKey}`)).toHaveLength(1)
  })

  it("202 in_progress while the first delivery is still sending", async () => {
    const signed = await paying(`${name}-slow`)
    resend.delayNext(1, 800)
    const first = deliver(gateway.url, signed)
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(await deliver(gateway.url, signed)).toEqual({ status: 202, body: { status: "in_progress", orderId: signed.orderKey } })
    expect((await first).body.status).toBe("sent")
  })

  it("200 ignored for a verified event that needs no email", async () => {
    const answer = await deliver(gateway.url, await other(`${name}-other`))
    expect(answer.status).toBe(200)
    expect(answer.body.status).toBe("ignored")
  })

  it("500 retry when the send fails, then 200 capped at the cap (2 here)", async () => {
    const signed = await paying(`${name}-capped`)
    resend.failNext(3, { status: 500, name: "internal_server_error", message: "boom" })
    expect(await deliver(gateway.url, signed)).toMatchObject({ status: 500, body: { status: "retry", orderId: signed.orderKey } })
    resend.failNext(3, { status: 500, name: "internal_server_error", message: "boom" })
    expect(await deliver(gateway.url, signed)).toEqual({ status: 200, body: { status: "capped", orderId: signed.orderKey } })
    expect(await deliver(gateway.url, signed)).toEqual({ status: 200, body: { status: "capped", orderId: signed.orderKey } })
    const alerts = await admin(gateway.url, "/admin/alerts")
    expect(alerts.body.alerts.filter((a: { orderKey: string }) => a.orderKey === signed.orderKey).map((a: { kind: string }) => a.kind))
      .toEqual(["capped"])
    // The owner was emailed once, through the same mailer, under the alert's own key.
    const toOwner = resend.emails.filter((e) => e.to.includes("owner@example.com") && e.text?.includes(signed.orderKey))
    expect(toOwner).toHaveLength(1)
    expect(toOwner[0]!.idempotencyKey).toMatch(/^hookgate\/alert\//)
  })

  it("200 failed when Resend rejects the email for good", async () => {
    const signed = await paying(`${name}-rejected`)
    resend.failNext(1, { status: 422, name: "invalid_from_address", message: "Invalid `from` field" })
    expect(await deliver(gateway.url, signed)).toEqual({ status: 200, body: { status: "failed", orderId: signed.orderKey } })
  })

  it("401 unauthorized for a wrong secret, 400 malformed for a signed non-JSON body", async () => {
    const signed = await paying(`${name}-badsig`)
    const forged = await (name === "stripe" ? signStripe(signed.body, "whsec_wrong") : signCreem(signed.body, "whsec_wrong"))
    expect(await deliver(gateway.url, forged)).toMatchObject({ status: 401, body: { status: "unauthorized", reason: "no_matching_signature" } })
    const junk = await (name === "stripe" ? signStripe("not json") : signCreem("not json"))
    expect((await deliver(gateway.url, junk)).body.status).toBe("malformed")
  })

  it("409 conflict for the same order with another email", async () => {
    const first = await paying(`${name}-conflict`)
    await deliver(gateway.url, first)
    const evil = await paying(`${name}-conflict`, "mallory@example.com")
    expect(await deliver(gateway.url, evil)).toEqual({ status: 409, body: { status: "conflict", orderId: first.orderKey } })
  })
})

describe("the contract over HTTP: whatever the provider", () => {
  it("413 too_large over 256 KiB, 404 unknown_provider", async () => {
    const big = await signStripe(stripeBody("big").replace('"livemode":false', `"livemode":false,"pad":"${"x".repeat(300 * 1024)}"`))
    expect(await deliver(gateway.url, big)).toEqual({ status: 413, body: { status: "too_large", limitBytes: 256 * 1024 } })
    expect(await post(gateway.url, "/webhooks/paypal", await signStripe(stripeBody("pp")))).toEqual({ status: 404, body: { status: "unknown_provider" } })
  })

  it("503 unavailable while the database is locked by another process, and the retry then succeeds", async () => {
    const signed = await signStripe(stripeBody("locked"))
    const db = new Database(dbPath)
    db.exec("BEGIN EXCLUSIVE")
    try {
      expect(await deliver(gateway.url, signed)).toEqual({ status: 503, body: { status: "unavailable" } })
    } finally {
      db.exec("ROLLBACK")
      db.close()
    }
    expect((await deliver(gateway.url, signed)).body.status).toBe("sent")
  })

  it("GET /healthz answers 200 and /metrics counts webhooks in Prometheus format", async () => {
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200)
    const metrics = await fetch(`${gateway.url}/metrics`)
    expect(metrics.headers.get("content-type")).toContain("text/plain")
    const text = await metrics.text()
    expect(text).toMatch(/hookgate_webhooks_total\{[^}]*outcome="Sent"[^}]*\} [1-9]/)
    expect(text).toContain("hookgate_sends_total")
  })

  it("one structured log line per webhook, with no secret and no email body", async () => {
    const logs = gateway.output()
    const lines = logs.split("\n").filter((line) => line.includes('"message":"webhook"'))
    expect(lines.length).toBeGreaterThan(5)
    const line = JSON.parse(lines[0]!)
    expect(line.annotations).toMatchObject({ provider: expect.any(String), outcome: expect.any(String), durationMs: expect.any(Number) })
    expect(logs).not.toContain("whsec_test_")
    expect(logs).not.toContain(resend.apiKey)
    expect(logs).not.toContain("Thank you for your order")
  })
})
