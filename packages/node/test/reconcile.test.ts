import { startResendTestServer, type ResendTestServerShape } from "@hookgate/mailer-resend/testing"
import { checkoutSessionEvent, startStripeEventsServer, type StripeEventsServer } from "@hookgate/provider-stripe/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { baseEnv, type GatewayProcess, resendEnv, runCli, startGateway, tempDir } from "./support/gateway-process.js"
import { admin, deliver, signStripe } from "./support/webhooks.js"

/**
 * Reconciliation over real processes: `hookgate serve` and `hookgate reconcile` on one
 * SQLite file, Stripe's List Events served by the stand-in over HTTP, emails counted by
 * Resend's test server. The tests run in order and share the processes.
 */

let stripe: StripeEventsServer
let resend: ResendTestServerShape
let gateway: GatewayProcess
let env: Record<string, string>

const NOW_S = Math.floor(Date.now() / 1000)
/** A paid (or unpaid) Checkout Session's event, placed at the stand-in; answers the webhook body Stripe would send. */
const publish = (n: string, paid = true, created = NOW_S - 3600) => {
  const body = checkoutSessionEvent(`evt_${n}`, "checkout.session.completed", {
    id: `cs_test_${n}`,
    email: `${n}@example.com`,
    paymentStatus: paid ? "paid" : "unpaid"
  }, created)
  stripe.addEvent(JSON.parse(body))
  return body
}
const emailsFor = (n: string) => resend.emails.filter((e) => e.idempotencyKey === `hookgate/order/stripe:cs_test_${n}`)
const metric = async (name: string, label: string) => {
  const text = await (await fetch(`${gateway.url}/metrics`)).text()
  const line = text.split("\n").find((l) => l.startsWith(`${name}{`) && l.includes(label))
  return line === undefined ? 0 : Number(line.split(" ").at(-1))
}

const until = async (check: () => boolean, seconds = 30) => {
  const deadline = Date.now() + seconds * 1000
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition never held")
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}
/** serve's own run at start has finished (one "reconciled" log line per run and provider). */
const ranAtStart = (process: GatewayProcess) => until(() => /"message":"reconciled"/.test(process.stdout()))

const lost = Array.from({ length: 30 }, (_, i) => `lost_${i}`)
const delivered = Array.from({ length: 10 }, (_, i) => `hooked_${i}`)
const unpaid = Array.from({ length: 5 }, (_, i) => `unpaid_${i}`)
const bodies = new Map<string, string>()

beforeAll(async () => {
  stripe = await startStripeEventsServer()
  resend = await startResendTestServer()
  env = {
    ...baseEnv(tempDir()),
    ...resendEnv(resend),
    STRIPE_API_KEY: stripe.apiKey,
    STRIPE_API_BASE: stripe.url,
    // The periodic run starts with serve and then waits an hour: the tests drive the runs.
    HOOKGATE_RECONCILE_EVERY: "1h"
  }
  gateway = await startGateway(env)
  // Its first run finds nothing yet: wait for it, so that it cannot race the tests' own runs.
  await ranAtStart(gateway)
}, 90_000)

afterAll(async () => {
  await gateway?.stop()
  await resend?.close()
  await stripe?.close()
})

describe("reconciliation over real processes", () => {
  it("10 orders delivered by webhook, 30 whose webhooks were never sent, 5 unpaid: the run sends the 30, once each", async () => {
    for (const n of [...lost, ...delivered]) bodies.set(n, publish(n))
    for (const n of unpaid) publish(n, false)
    for (const n of delivered) expect((await deliver(gateway.url, await signStripe(bodies.get(n)!))).body.status).toBe("sent")
    expect(resend.emails).toHaveLength(10)

    const dry = await admin(gateway.url, "/admin/reconcile", { method: "POST", body: JSON.stringify({ since: "72h", dryRun: true }) })
    expect(dry.status).toBe(200)
    expect(dry.body.providers[0]).toMatchObject({ provider: "stripe", seen: 45, known: 10, new: 30, unpaid: 5, cursor: null })
    expect(resend.emails).toHaveLength(10)

    const run = await admin(gateway.url, "/admin/reconcile", { method: "POST" })
    expect(run.status).toBe(200)
    expect(run.body).toMatchObject({ status: "ok", newOrders: 30 })
    expect(run.body.providers[0]).toMatchObject({ seen: 45, known: 10, new: 30, unpaid: 5, error: null })
    for (const n of [...lost, ...delivered]) expect(emailsFor(n)).toHaveLength(1)
    for (const n of unpaid) expect(emailsFor(n)).toHaveLength(0)
    expect(resend.emails).toHaveLength(40)

    // One alert for the run, counted in /metrics; the orders say where they came from.
    const alerts = (await admin(gateway.url, "/admin/alerts")).body.alerts as Array<{ kind: string; message: string }>
    expect(alerts.filter((a) => a.kind === "webhooks_missing").map((a) => a.message)).toEqual([
      "30 paid orders arrived only through reconciliation: check the webhook endpoint and secret (stripe: 30)"
    ])
    expect(await metric("hookgate_alerts_total", 'kind="webhooks_missing"')).toBe(1)
    expect(await metric("hookgate_reconciled_objects_total", 'outcome="new"')).toBe(30)
    const orders = (await admin(gateway.url, "/admin/orders?limit=100")).body.orders as Array<{ key: string; source: string }>
    const sources = new Map(orders.map((o) => [o.key, o.source]))
    expect(lost.every((n) => sources.get(`stripe:cs_test_${n}`) === "reconcile")).toBe(true)
    expect(delivered.every((n) => sources.get(`stripe:cs_test_${n}`) === "webhook")).toBe(true)
  }, 120_000)

  it("a second run, from the CLI, finds nothing new; a webhook arriving after the pull is a duplicate", async () => {
    const second = await runCli(env, ["reconcile"])
    expect(second.code, second.stderr).toBe(0)
    expect(second.stdout).toMatch(/^stripe\s+45\s+40\s+0\s+5\s+0\s/m)
    expect(second.stdout).toContain("0 paid order(s) arrived only through this run")
    const late = await deliver(gateway.url, await signStripe(bodies.get(lost[0]!)!))
    expect(late).toMatchObject({ status: 200, body: { status: "duplicate" } })
    expect(resend.emails).toHaveLength(40)
    const listed = await runCli(env, ["orders", "list", "--limit", "100"])
    expect(listed.stdout).toMatch(/^order\s+status\s+failures\s+next attempt\s+last error\s+source$/m)
    expect(listed.stdout).toMatch(/^stripe:cs_test_lost_0\s+sent\s+0\s+-\s+-\s+reconcile$/m)
    expect(listed.stdout).toMatch(/^stripe:cs_test_hooked_0\s+sent\s+0\s+-\s+-\s+webhook$/m)
  }, 120_000)

  it("a wrong key: exit non-zero naming STRIPE_API_KEY, the key never printed", async () => {
    const key = "sk_test_revoked_key_that_must_never_be_printed_4242"
    const refused = await runCli({ ...env, STRIPE_API_KEY: key }, ["reconcile", "--since", "72h"])
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toContain("STRIPE_API_KEY")
    expect(refused.stdout + refused.stderr).not.toContain(key)
    expect(refused.stdout + refused.stderr).not.toContain(key.slice(-12))
    expect(gateway.output()).not.toContain(key)
    const checked = await runCli({ ...env, STRIPE_API_KEY: key }, ["config", "check"])
    expect(checked.stdout).toMatch(/^STRIPE_API_KEY\s+<redacted>$/m)
    expect(checked.stdout).toMatch(/^HOOKGATE_RECONCILE_EVERY\s+1h$/m)
    expect(checked.stdout + checked.stderr).not.toContain(key)
  }, 60_000)

  it("serve reconciles on its own schedule (HOOKGATE_RECONCILE_EVERY)", async () => {
    // A database and a Stripe account of its own.
    const account = await startStripeEventsServer()
    const own = await startGateway({
      ...env,
      ...baseEnv(tempDir()),
      STRIPE_API_KEY: account.apiKey,
      STRIPE_API_BASE: account.url,
      HOOKGATE_RECONCILE_EVERY: "1 second"
    })
    try {
      await ranAtStart(own)
      const body = checkoutSessionEvent("evt_periodic", "checkout.session.completed", { id: "cs_test_periodic", email: "p@example.com" }, NOW_S)
      account.addEvent(JSON.parse(body))
      // Its next runs (every second) find the new order and send it, once.
      await until(() => emailsFor("periodic").length > 0)
      await new Promise((resolve) => setTimeout(resolve, 2_500))
      expect(emailsFor("periodic")).toHaveLength(1)
    } finally {
      await own.stop()
      await account.close()
    }
  }, 90_000)
})
