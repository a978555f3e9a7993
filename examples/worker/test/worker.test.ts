import { D1Store } from "@hookgate/store-d1"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { ADMIN_TOKEN, type Example, eventually, RESEND_API_KEY, startExample } from "./support/harness.js"
import { checkoutSessionEvent } from "@hookgate/provider-stripe/testing"
import { CREEM_SECRET, creemCheckout, lemonSqueezyOrder, paddleTransaction, STRIPE_SECRET, stripeCheckout } from "./support/webhooks.js"

// One Miniflare for the file (the Worker bundled once by wrangler); tables emptied per test.
let example: Example
beforeAll(async () => {
  example = await startExample()
  // The first invocation builds each isolate's runtime, which applies the D1 migrations.
  expect((await example.get("cloudflare", "/healthz")).status).toBe(200)
  expect((await example.get("resend", "/healthz")).status).toBe(200)
  expect((await example.get("cloudflare", "/readyz")).status).toBe(200)
})
afterAll(() => example?.dispose())
beforeEach(() => example.reset())

const HOUR = 3_600_000

describe("the example Worker, bundled by wrangler, in Miniflare", () => {
  it("migrated D1 on its first run, recording the file in d1_migrations as wrangler does", async () => {
    const applied = await example.db("cloudflare").prepare("SELECT name FROM d1_migrations ORDER BY id").all()
    expect(applied.results).toEqual(D1Store.d1Migrations.map((m) => ({ name: m.name })))
    expect(example.bundle.contents.length).toBeGreaterThan(0)
    expect(example.cron).toBe("*/10 * * * *")
  })

  it("the bundle is minified and holds no test or polyfill code: no fast-check, pure-rand, core-js-pure, no Effect barrel", () => {
    // fast-check and pure-rand once reached the bundle through a namespace imported from the "effect"
    // barrel (esbuild keeps the whole of such a module: Schema's, with its Arbitrary), core-js-pure
    // through mimetext's build. Imports from the barrels are the regression to catch, in hookgate's
    // packages and in the example alike.
    expect(example.bundle.inputs.length).toBeGreaterThan(100)
    expect(example.bundle.inputs.filter((file) => /node_modules\/(fast-check|pure-rand|core-js-pure|mimetext)\//.test(file)))
      .toEqual([])
    const barrel = /node_modules\/(effect|@effect\/platform|@effect\/sql)\/dist\/esm\/index\.js$/
    const importsBarrel = example.bundle.imports.filter(({ file, imports }) =>
      !file.includes("node_modules/") && imports.some((path) => barrel.test(path)))
    expect(importsBarrel.map(({ file }) => file)).toEqual([])
    // wrangler.jsonc's minify and keep_names: false (keep_names wraps every closure in __name).
    expect(example.bundle.contents).not.toContain("__name")
    // Unminified, esbuild heads each module with a "// path" comment.
    expect(example.bundle.contents).not.toMatch(/^\/\/ .*node_modules\//m)
  })

  it("50 concurrent identical signed webhooks send one email through the send_email binding; the order is sent in D1", async () => {
    const webhook = await stripeCheckout("cs_test_fifty")
    const answers = await Promise.all(Array.from({ length: 50 }, () => example.post("cloudflare", webhook)))
    const statuses = answers.map((a) => a.body["status"])
    expect(statuses.filter((s) => s === "sent")).toHaveLength(1)
    expect(statuses.every((s) => s === "sent" || s === "in_progress" || s === "duplicate")).toBe(true)
    const emails = await eventually(() => example.log.emails(), (list) => list.length >= 1)
    expect(emails).toHaveLength(1)
    expect(emails[0]).toMatchObject({ to: "buyer@example.com", subject: "Your order is ready" })
    // From HOOKGATE_FROM, the gateway's name for the sender (wrangler.jsonc's var).
    expect(emails[0]!.from).toContain("shop@example.com")
    expect(emails[0]!.text).toContain("stripe:cs_test_fifty")
    const order = await example.order("cloudflare", "stripe:cs_test_fifty")
    expect(order).toMatchObject({ status: "sent", attempts: 0, lease_token: null, duplicates_prevented: 49 })
    // Nothing trails behind the answers.
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(await example.log.emails()).toHaveLength(1)
  })

  it("serves core's admin routes behind HOOKGATE_ADMIN_TOKEN: 401 without it, the order with it", async () => {
    const webhook = await stripeCheckout("cs_test_admin")
    expect((await example.post("cloudflare", webhook)).body).toMatchObject({ status: "sent" })
    const path = `/admin/orders/${encodeURIComponent("stripe:cs_test_admin")}`
    expect(await example.get("cloudflare", path)).toEqual({ status: 401, body: { status: "unauthorized" } })
    expect((await example.get("cloudflare", path, { authorization: "Bearer wrong" })).status).toBe(401)
    expect(await example.get("cloudflare", path, { authorization: `Bearer ${ADMIN_TOKEN}` }))
      .toMatchObject({ status: 200, body: { order: { key: "stripe:cs_test_admin", status: "sent" } } })
  })

  it("a Creem checkout goes through the same Worker (both providers are mounted)", async () => {
    const answer = await example.post("cloudflare", await creemCheckout("ord_creem_1"))
    expect(answer).toEqual({ status: 200, body: { status: "sent", orderId: "creem:ord_creem_1" } })
    expect((await eventually(() => example.log.emails(), (l) => l.length === 1))[0]!.to).toBe("buyer@example.com")
  })

  it("a Lemon Squeezy order_created is mounted by its secret: sent once, its retry a duplicate; Polar, unset, is not mounted", async () => {
    const webhook = await lemonSqueezyOrder("4711", "lemon@example.com")
    expect(await example.post("cloudflare", webhook)).toEqual({ status: 200, body: { status: "sent", orderId: "lemonsqueezy:4711" } })
    expect((await example.post("cloudflare", webhook)).body).toMatchObject({ status: "duplicate" })
    const emails = await eventually(() => example.log.emails(), (l) => l.length >= 1)
    expect(emails.map((e) => e.to)).toEqual(["lemon@example.com"])
    expect(await example.order("cloudflare", "lemonsqueezy:4711")).toMatchObject({ status: "sent", duplicates_prevented: 1 })
    // A request signed with another secret is refused and stores nothing.
    const forged = { ...webhook, headers: { ...webhook.headers, "x-signature": "0".repeat(64) } }
    expect((await example.post("cloudflare", forged)).status).toBe(401)
    expect((await example.post("cloudflare", { ...webhook, path: "/webhooks/polar" })).body).toMatchObject({ status: "unknown_provider" })
  })

  it("a Paddle transaction: the customer's email fetched from Paddle's API once (fetch in workerd), one email through Resend", async () => {
    const customer = example.paddle.addCustomer({ email: "paddle-buyer@example.com" })
    const fetchesBefore = example.paddle.requests.length
    const paid = await paddleTransaction("txn_01worker", customer)
    expect(await example.post("resend", paid)).toEqual({ status: 200, body: { status: "sent", orderId: "paddle:txn_01worker" } })
    expect(example.resend.emails.map((e) => e.to)).toEqual([["paddle-buyer@example.com"]])
    // transaction.completed for the same transaction, and Paddle's retry: duplicates, answered from the stored order.
    const completed = await paddleTransaction("txn_01worker", customer, "transaction.completed")
    expect((await example.post("resend", completed)).body).toMatchObject({ status: "duplicate" })
    expect((await example.post("resend", await paddleTransaction("txn_01worker", customer))).body).toMatchObject({ status: "duplicate" })
    expect(example.paddle.requests.length - fetchesBefore).toBe(1)
    expect(example.resend.emails).toHaveLength(1)
  })

  it("a conflicting replay answers 409 and leaves the order in D1 unchanged", async () => {
    expect((await example.post("cloudflare", await stripeCheckout("cs_test_conflict"))).status).toBe(200)
    const before = await example.order("cloudflare", "stripe:cs_test_conflict")
    const evil = await stripeCheckout("cs_test_conflict", { email: "mallory@example.com", eventId: "evt_evil" })
    expect(await example.post("cloudflare", evil)).toEqual({
      status: 409,
      body: { status: "conflict", orderId: "stripe:cs_test_conflict" }
    })
    expect(await example.order("cloudflare", "stripe:cs_test_conflict")).toEqual(before)
    const orders = await example.db("cloudflare").prepare("SELECT COUNT(*) AS n FROM hookgate_orders").first()
    expect(orders).toEqual({ n: 1 })
    // The refused event is kept as a receipt, for the operator.
    const receipts = await example.db("cloudflare").prepare("SELECT event_id, outcome FROM hookgate_receipts").all()
    expect(receipts.results).toEqual([{ event_id: "evt_evil", outcome: "conflict" }])
    expect(await example.log.emails()).toHaveLength(1)
  })

  it("a failed send answers 500 retry and is recorded; the cron run sends it once due, under the same Resend idempotency key", async () => {
    example.resend.failNext(3, { status: 500, name: "internal_server_error", message: "Resend is down" })
    const startedAt = Date.now()
    const answer = await example.post("resend", await stripeCheckout("cs_test_retry"))
    expect(answer).toMatchObject({ status: 500, body: { status: "retry", orderId: "stripe:cs_test_retry" } })
    const failed = await example.order("resend", "stripe:cs_test_retry")
    expect(failed).toMatchObject({ status: "pending", attempts: 1, lease_token: null })
    expect(String(failed!["last_error"])).toContain("Resend is down")
    // The default backoff: about a minute (jittered), from the Worker's own clock.
    const next = Number(failed!["next_attempt_at"])
    expect(next).toBeGreaterThan(startedAt + 40_000)
    expect(next).toBeLessThan(Date.now() + 80_000)
    // A cron run before it is due sends nothing.
    await example.scheduled("resend")
    expect(await example.order("resend", "stripe:cs_test_retry")).toEqual(failed)
    // Once due (the test moves next_attempt_at, rather than wait a minute), the cron run sends it.
    await example.makeDue("resend", "stripe:cs_test_retry")
    await example.scheduled("resend")
    expect(await example.order("resend", "stripe:cs_test_retry")).toMatchObject({ status: "sent", attempts: 1 })
    expect(example.resend.emails).toHaveLength(1)
    expect(example.resend.emails[0]).toMatchObject({ to: ["buyer@example.com"], subject: "Your order is ready" })
    // One webhook attempt with its two in-request retries, then the cron run: one key throughout.
    const keys = example.resend.requests.map((r) => r.idempotencyKey)
    expect(keys).toEqual(Array.from({ length: 4 }, () => "hookgate/order/stripe:cs_test_retry"))
    // A provider's replay now answers duplicate without a request to Resend.
    expect((await example.post("resend", await stripeCheckout("cs_test_retry"))).body["status"]).toBe("duplicate")
    expect(example.resend.requests).toHaveLength(4)
  })

  it("the cron reconciles with Stripe: paid sessions whose webhooks never came are sent once, the owner alerted once; a late webhook is a duplicate", async () => {
    const now = Math.floor(Date.now() / 1000)
    const lost = Array.from({ length: 6 }, (_, i) => `cs_test_lost_${i}`)
    for (const [i, id] of lost.entries()) {
      example.stripe.addEvent(JSON.parse(checkoutSessionEvent(`evt_${id}`, "checkout.session.completed", { id, email: `${id}@example.com` }, now - i)))
    }
    example.stripe.addEvent(JSON.parse(checkoutSessionEvent("evt_cs_test_unpaid", "checkout.session.completed", {
      id: "cs_test_unpaid",
      paymentStatus: "unpaid"
    }, now)))
    await example.scheduled("resend")
    const buyers = () => example.resend.emails.filter((e) => e.to.some((to) => to.startsWith("cs_test_")))
    expect(buyers().map((e) => e.to[0]).sort()).toEqual(lost.map((id) => `${id}@example.com`).sort())
    expect(await example.order("resend", "stripe:cs_test_lost_0")).toMatchObject({ status: "sent", source: "reconcile" })
    expect(await example.order("resend", "stripe:cs_test_unpaid")).toBeNull()
    // The request carried the key as a Bearer token and asked for the two paying types.
    expect(example.stripe.requests[0]!.query.getAll("types[]")).toEqual(["checkout.session.completed", "checkout.session.async_payment_succeeded"])
    const alerts = await eventually(
      () => example.db("resend").prepare("SELECT * FROM hookgate_alerts WHERE kind = 'webhooks_missing'").all(),
      (result) => result.results.length === 1
    )
    expect(String(alerts.results[0]!["message"])).toMatch(/^6 paid orders arrived only through reconciliation/)
    // The cron's sweep and reconciliation are kept in D1 as the last runs (the console's overview).
    const runs = await example.db("resend").prepare("SELECT kind, report FROM hookgate_runs ORDER BY kind").all()
    expect(runs.results.map((r) => r["kind"])).toEqual(["reconcile", "sweep"])
    expect(JSON.parse(String(runs.results[0]!["report"]))).toMatchObject({
      dryRun: false,
      providers: [{ provider: "stripe", seen: 7, new: 6, unpaid: 1, error: null }]
    })
    // A second cron run finds nothing new; the webhook that finally comes is a duplicate.
    await example.scheduled("resend")
    expect(buyers()).toHaveLength(6)
    const late = await stripeCheckout("cs_test_lost_0", { email: "cs_test_lost_0@example.com" })
    expect((await example.post("resend", late)).body).toMatchObject({ status: "duplicate", orderId: "stripe:cs_test_lost_0" })
    expect(buyers()).toHaveLength(6)
  })

  it("eight recorded failures cap the order: one alert to the owner, and no sender sends again", async () => {
    const key = "stripe:cs_test_capped"
    example.resend.failNext(8 * 3, { status: 503, name: "application_error", message: "overloaded" })
    expect((await example.post("resend", await stripeCheckout("cs_test_capped"))).body["status"]).toBe("retry")
    for (let attempt = 2; attempt <= 8; attempt++) {
      await example.makeDue("resend", key)
      await example.scheduled("resend")
      expect(await example.order("resend", key)).toMatchObject({ attempts: attempt, status: attempt === 8 ? "capped" : "pending" })
    }
    const orderRequests = () => example.resend.requests.filter((r) => r.idempotencyKey === `hookgate/order/${key}`)
    expect(orderRequests()).toHaveLength(24)
    // One alert, stored in D1, delivered to the owner after the cron run answered (ctx.waitUntil).
    const alerts = await eventually(
      () => example.db("resend").prepare("SELECT * FROM hookgate_alerts").all(),
      (result) => result.results.length === 1 && result.results[0]!["delivered_at"] !== null
    )
    expect(alerts.results[0]).toMatchObject({ kind: "capped", order_key: key, delivery_error: null })
    const ownerEmails = example.resend.emails.filter((e) => e.to.includes("owner@example.com"))
    expect(ownerEmails).toHaveLength(1)
    expect(ownerEmails[0]!.subject).toContain("capped")
    expect(ownerEmails[0]!.from).toBe("Example Shop <shop@example.com>") // HOOKGATE_FROM, for alerts too
    // Neither a webhook replay nor a later cron run sends again, even long after.
    expect(await example.post("resend", await stripeCheckout("cs_test_capped"))).toEqual({
      status: 200,
      body: { status: "capped", orderId: key }
    })
    await example.db("resend").prepare("UPDATE hookgate_orders SET next_attempt_at = ? WHERE order_key = ?")
      .bind(Date.now() - 24 * HOUR, key).run()
    await example.scheduled("resend")
    expect(orderRequests()).toHaveLength(24)
    expect(example.resend.emails.filter((e) => e.to.includes("buyer@example.com"))).toHaveLength(0)
    expect((await example.db("resend").prepare("SELECT COUNT(*) AS n FROM hookgate_alerts").first())).toEqual({ n: 1 })
  })

  it("logs one JSON line per webhook, and never a secret", async () => {
    await example.post("resend", await stripeCheckout("cs_test_logs"))
    const lines = await eventually(async () => example.workerLogs(), (l) => l.some((line) => line.includes("\"webhook\"")))
    const webhook = lines.map((line) => JSON.parse(line) as { message: unknown; annotations: Record<string, unknown> })
      .find((entry) => entry.message === "webhook")
    expect(webhook?.annotations).toMatchObject({ provider: "stripe", outcome: "sent", orderKey: "stripe:cs_test_logs" })
    for (const secret of [STRIPE_SECRET, CREEM_SECRET, RESEND_API_KEY]) {
      expect(lines.join("\n")).not.toContain(secret)
    }
  })

  it("an unsigned or badly signed webhook answers 401 and writes nothing", async () => {
    const webhook = await stripeCheckout("cs_test_forged")
    const forged = { ...webhook, headers: { ...webhook.headers, "stripe-signature": "t=1,v1=00" } }
    expect((await example.post("cloudflare", forged)).status).toBe(401)
    expect(await example.db("cloudflare").prepare("SELECT COUNT(*) AS n FROM hookgate_orders").first()).toEqual({ n: 0 })
  })
})
