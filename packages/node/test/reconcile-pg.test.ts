import { startResendTestServer, type ResendTestServerShape } from "@hookgate/mailer-resend/testing"
import { checkoutSessionEvent, startStripeEventsServer, type StripeEventsServer } from "@hookgate/provider-stripe/testing"
import { PgTestServer } from "@hookgate/store-pg/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { baseEnv, type GatewayProcess, resendEnv, startGateway, tempDir } from "./support/gateway-process.js"
import { admin } from "./support/webhooks.js"

/**
 * Three `hookgate serve` processes on one PostgreSQL database reconcile the same Stripe
 * account at the same moment: the lease, not luck, keeps one email per order.
 */

let postgres: PgTestServer
let resend: ResendTestServerShape
let stripe: StripeEventsServer
const gateways: Array<GatewayProcess> = []

beforeAll(async () => {
  postgres = await PgTestServer.start()
  resend = await startResendTestServer()
  stripe = await startStripeEventsServer()
  const env = {
    ...baseEnv(tempDir()),
    HOOKGATE_DATABASE_URL: await postgres.createDatabase("reconcile"),
    HOOKGATE_DB_CONNECT_TIMEOUT: "60 seconds",
    ...resendEnv(resend),
    STRIPE_API_KEY: stripe.apiKey,
    STRIPE_API_BASE: stripe.url,
    HOOKGATE_RECONCILE_EVERY: "1h"
  }
  gateways.push(...await Promise.all([0, 1, 2].map(() => startGateway(env, { args: ["serve"] }, 75_000))))
  // Each ran once at start, on an empty account.
  const deadline = Date.now() + 30_000
  while (!gateways.every((g) => /"message":"reconciled"/.test(g.stdout())) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}, 180_000)

afterAll(async () => {
  await Promise.all(gateways.map((g) => g.stop()))
  await stripe?.close()
  await resend?.close()
  await postgres?.dispose()
})

describe("reconciliation on Postgres, three gateways at once", () => {
  it("40 paid orders no webhook brought: one email each, whichever gateway stored it", async () => {
    const now = Math.floor(Date.now() / 1000)
    const ids = Array.from({ length: 40 }, (_, i) => `pg_${i}`)
    for (const [i, id] of ids.entries()) {
      stripe.addEvent(JSON.parse(checkoutSessionEvent(`evt_${id}`, "checkout.session.completed", { id: `cs_test_${id}`, email: `${id}@example.com` }, now - i)))
    }
    const runs = await Promise.all(gateways.map((g) => admin(g.url, "/admin/reconcile", { method: "POST" })))
    for (const run of runs) expect(run.status).toBe(200)
    const summaries = runs.map((r) => r.body.providers[0] as { seen: number; known: number; new: number })
    for (const s of summaries) {
      expect(s.seen).toBe(40)
      expect(s.known + s.new).toBe(40)
    }
    // Every order was stored by exactly one of them.
    expect(summaries.reduce((n, s) => n + s.new, 0)).toBe(40)
    for (const id of ids) {
      expect(resend.emails.filter((e) => e.idempotencyKey === `hookgate/order/stripe:cs_test_${id}`)).toHaveLength(1)
    }
    expect(resend.emails).toHaveLength(40)
  }, 120_000)
})
