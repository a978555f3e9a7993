import { startResendTestServer, type ResendTestServerShape } from "@hookgate/mailer-resend/testing"
import { PgTestServer } from "@hookgate/store-pg/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { baseEnv, type GatewayProcess, startGateway, tempDir } from "./support/gateway-process.js"
import { admin, creemBody, deliver, type Signed, signCreem, signStripe, stripeBody } from "./support/webhooks.js"

/**
 * Three real `hookgate serve` processes on one real PostgreSQL server, emails
 * counted by Resend's test server. The tests run in order and share the processes.
 */

const LEASE_MS = 12_000

let postgres: PgTestServer
let resend: ResendTestServerShape
let env: Record<string, string>
const gateways: Array<GatewayProcess> = []

beforeAll(async () => {
  postgres = await PgTestServer.start()
  resend = await startResendTestServer()
  env = {
    ...baseEnv(tempDir()),
    HOOKGATE_DATABASE_URL: await postgres.createDatabase("gateway"),
    HOOKGATE_DB_POOL_SIZE: "8",
    HOOKGATE_MAILER: "resend",
    RESEND_API_KEY: resend.apiKey,
    RESEND_BASE_URL: resend.url,
    HOOKGATE_LEASE: `${LEASE_MS} millis`,
    HOOKGATE_SWEEP_EVERY: "500 millis",
    HOOKGATE_CAMPAIGN_POLL: "300 millis",
    // One recorded failure caps an order, so the sweep test reaches the cap without waiting out a backoff.
    HOOKGATE_MAX_ATTEMPTS: "1"
  }
  // Started together on a fresh database: their migrations race, and must not fail.
  gateways.push(...await Promise.all([0, 1, 2].map(() => startGateway(env))))
}, 90_000)

afterAll(async () => {
  await Promise.all(gateways.map((g) => g.stop()))
  await resend?.close()
  await postgres?.dispose()
})

const alive = () => gateways.filter((g) => g.child.exitCode === null && g.child.signalCode === null)
const emailsFor = (orderKey: string) => resend.emails.filter((e) => e.idempotencyKey === `hookgate/order/${orderKey}`)
const sign = (id: string, i: number) => (i % 2 === 0 ? signStripe(stripeBody(id)) : signCreem(creemBody(id)))

const eventually = async <A>(read: () => Promise<A>, check: (a: A) => boolean, seconds = 60): Promise<A> => {
  const deadline = Date.now() + seconds * 1000
  for (;;) {
    const value = await read()
    if (check(value)) return value
    if (Date.now() > deadline) throw new Error(`condition never held: ${JSON.stringify(value)}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

/** A counter's value in one process's Prometheus text (0 when absent). */
const metric = async (gateway: GatewayProcess, name: string, label: string) => {
  const text = await (await fetch(`${gateway.url}/metrics`)).text()
  const line = text.split("\n").find((l) => l.startsWith(`${name}{`) && l.includes(label))
  return line === undefined ? 0 : Number(line.split(" ").at(-1))
}

/** The operator's retry of a failed or capped order (due at once: the sweeps pick it up). */
const requeue = (gateway: GatewayProcess, signed: Signed) =>
  admin(gateway.url, `/admin/orders/${encodeURIComponent(signed.orderKey)}/retry`, { method: "POST", body: JSON.stringify({ confirm: true }) })

/** Posts every copy at once, copy `c` of order `i` to process `(i + c) % n`. */
const deliverSpread = (orders: ReadonlyArray<Signed>, copies: number, to = alive()) =>
  Promise.all(orders.flatMap((signed, i) =>
    Array.from({ length: copies }, (_, c) => deliver(to[(i + c) % to.length]!.url, signed))
  ))

describe("several gateway processes on one Postgres", () => {
  it("500 orders, each posted 5 times spread across three processes at once: one email per order, no 5xx", async () => {
    const orders = await Promise.all(Array.from({ length: 500 }, (_, i) => sign(`multi-${i}`, i)))
    const answers = await deliverSpread(orders, 5)
    expect(answers.filter((a) => a.status >= 500)).toEqual([])
    expect(answers.filter((a) => a.body.status === "sent")).toHaveLength(500)
    for (const signed of orders) expect(emailsFor(signed.orderKey)).toHaveLength(1)
    // Every process sent some of them.
    for (const gateway of gateways) expect(await metric(gateway, "hookgate_sends_total", `outcome="accepted"`)).toBeGreaterThan(0)
    const stats = await admin(gateways[0]!.url, "/admin/stats")
    expect(stats.body.orders).toMatchObject({ sent: 500, pending: 0 })
  }, 120_000)

  it("the sweep runs in every process: requeued orders are sent once each, and a capped order raises one alert", async () => {
    // 120 orders refused by the mailer (Rejected: failed at once), then requeued through all three processes.
    const orders = await Promise.all(Array.from({ length: 120 }, (_, i) => sign(`swept-${i}`, i)))
    resend.failNext(120, { status: 422, name: "validation_error", message: "refused for the test" })
    const first = await Promise.all(orders.map((signed, i) => deliver(gateways[i % 3]!.url, signed)))
    expect(first.every((a) => a.status < 500 || a.body.status === "retry")).toBe(true)
    for (const signed of orders) expect(emailsFor(signed.orderKey)).toHaveLength(0)

    // The first 90 are retried by the sweeps with a healthy mailer.
    const swept = orders.slice(0, 90)
    const requeued = await Promise.all(swept.map((signed, i) =>
      requeue(gateways[i % 3]!, signed)
    ))
    expect(requeued.every((r) => r.body.status === "requeued")).toBe(true)
    await eventually(() => admin(gateways[0]!.url, "/admin/stats"), (s) => s.body.orders.pending === 0)
    for (const signed of swept) expect(emailsFor(signed.orderKey)).toHaveLength(1)

    // The last 30 meet a failing mailer in the sweep: each is capped once, with one alert.
    const capped = orders.slice(90)
    resend.failNext(10_000, { status: 500, name: "application_error", message: "down for the test" })
    try {
      await Promise.all(capped.map((signed, i) =>
        requeue(gateways[i % 3]!, signed)
      ))
      await eventually(() => admin(gateways[0]!.url, "/admin/stats"), (s) => s.body.orders.capped === 30 && s.body.orders.pending === 0)
    } finally {
      resend.reset()
    }
    const alerts = await admin(gateways[1]!.url, "/admin/alerts")
    const cappedAlerts = (alerts.body.alerts as Array<{ kind: string; orderKey: string }>).filter((a) => a.kind === "capped")
    expect(cappedAlerts.map((a) => a.orderKey).sort()).toEqual(capped.map((s) => s.orderKey).sort())
  }, 120_000)

  it("a 5,000-recipient campaign started once is consumed by all three processes; a pause in one holds the others", async () => {
    const recipients = Array.from({ length: 5_000 }, (_, i) => ({ email: `fan${i}@example.com`, vars: { name: `Fan ${i}` } }))
    const template = { from: "Shop <news@shop.example>", subject: "Hello {{name}}", text: "Dear {{name}}, the sale starts today." }
    const sentBefore = await Promise.all(gateways.map((g) => metric(g, "hookgate_campaign_recipients_total", `outcome="sent"`)))
    const created = await admin(gateways[0]!.url, "/admin/campaigns", { method: "POST", body: JSON.stringify({ id: "big", template, recipients }) })
    expect(created).toMatchObject({ status: 201, body: { total: 5_000 } })
    const status = () => admin(gateways[2]!.url, "/admin/campaigns/big")
    // Slow sends, so the pause lands while most batches are still to go.
    resend.delayNext(60, 400)
    await admin(gateways[0]!.url, "/admin/campaigns/big/start", { method: "POST" })
    await eventually(status, (s) => s.body.sent >= 500)

    // Paused in one process: no process leases a new batch; the batches in flight finish.
    expect((await admin(gateways[1]!.url, "/admin/campaigns/big/pause", { method: "POST" })).body.state).toBe("paused")
    const settled = await eventually(status, (s) => s.body.reserved === 0)
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    const held = await status()
    expect(held.body).toMatchObject({ state: "paused", sent: settled.body.sent, reserved: 0 })
    expect(held.body.sent).toBeLessThan(5_000)

    expect((await admin(gateways[2]!.url, "/admin/campaigns/big/resume", { method: "POST" })).body.state).toBe("running")
    const done = await eventually(status, (s) => s.body.state === "completed", 90)
    expect(done.body).toMatchObject({ total: 5_000, sent: 5_000, failed: 0, reserved: 0, remaining: 0 })
    const campaignEmails = resend.emails.filter((e) => e.to.some((to) => /^fan\d+@example\.com$/.test(to)))
    expect(campaignEmails).toHaveLength(5_000)
    expect(new Set(campaignEmails.flatMap((e) => e.to)).size).toBe(5_000)
    // Batches were spread: every process recorded recipients as sent.
    const sentAfter = await Promise.all(gateways.map((g) => metric(g, "hookgate_campaign_recipients_total", `outcome="sent"`)))
    const perProcess = sentAfter.map((n, i) => n - sentBefore[i]!)
    expect(perProcess.reduce((a, b) => a + b, 0)).toBe(5_000)
    for (const n of perProcess) expect(n).toBeGreaterThan(0)
  }, 120_000)

  it("SIGKILL one process while it holds leases mid-send: after the lease expires the others finish its orders, one email each", async () => {
    const [survivor, , victim] = gateways as [GatewayProcess, GatewayProcess, GatewayProcess]
    const orders = await Promise.all(Array.from({ length: 40 }, (_, i) => sign(`killed-${i}`, i)))
    const pendingBefore = (await admin(survivor.url, "/admin/stats")).body.orders.pending as number
    resend.delayNext(40, 3_000) // the victim's sends are still in flight when it dies
    const cut = Promise.all(orders.map((signed) => deliver(victim.url, signed).then((a) => a.status, () => 0)))
    await eventually(() => admin(survivor.url, "/admin/stats"), (s) => s.body.orders.pending === pendingBefore + 40)
    await new Promise((resolve) => setTimeout(resolve, 300))
    victim.child.kill("SIGKILL")
    await victim.exited
    expect((await cut).every((status) => status === 0)).toBe(true) // no answer: the process died holding the leases

    // The leases expire; the sweeps of the two survivors take the orders over.
    const killedAt = Date.now()
    await eventually(() => admin(survivor.url, "/admin/stats"), (s) => s.body.orders.pending === pendingBefore, 60)
    expect(Date.now() - killedAt).toBeGreaterThan(LEASE_MS - 4_000)
    for (const signed of orders) expect(emailsFor(signed.orderKey)).toHaveLength(1)
    const taken = await admin(survivor.url, `/admin/orders/${encodeURIComponent(orders[0]!.orderKey)}`)
    expect(taken.body.order).toMatchObject({ status: "sent", uncertain: true })
    expect((await admin(survivor.url, "/admin/stats")).body.possibleDuplicates).toBe(0)
  }, 120_000)

  it("Postgres restarted under load: 503 unavailable while it is down, nothing half-written, recovery without a restart", async () => {
    const live = alive()
    const results: Array<{ readonly signed: Signed; readonly status: number; readonly body: Record<string, unknown> }> = []
    let running = true
    const worker = async (w: number) => {
      for (let n = 0; running; n++) {
        const signed = await sign(`restart-${w}-${n}`, n)
        const answer = await deliver(live[(w + n) % live.length]!.url, signed).catch(() => ({ status: 0, body: {} }))
        results.push({ signed, ...answer })
      }
    }
    const load = Promise.all([0, 1, 2, 3].map(worker))
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    await postgres.stop()
    const downFrom = results.length
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    const whileDown = results.slice(downFrom)
    await postgres.restart()
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    running = false
    await load

    expect(whileDown.length).toBeGreaterThan(0)
    expect(whileDown.every((r) => r.status === 503 && r.body.status === "unavailable")).toBe(true)
    // Every answer is a success or 503 unavailable; after the restart, requests succeed again.
    expect(results.filter((r) => !(r.status === 200 || (r.status === 503 && r.body.status === "unavailable")))).toEqual([])
    expect(results.at(-1)!.status).toBe(200)
    for (const gateway of live) {
      const fresh = await signStripe(stripeBody(`after-restart-${gateway.url.split(":").at(-1)}`))
      expect((await deliver(gateway.url, fresh)).body.status).toBe("sent")
    }

    // The provider retries what answered 503; an order stored before the outage ends sent once
    // (directly, or by a sweep when a lease left behind expires).
    const refused = results.filter((r) => r.status === 503)
    const retried = await Promise.all(refused.map((r, i) => deliver(live[i % live.length]!.url, r.signed)))
    expect(retried.filter((a) => a.status >= 500)).toEqual([])
    await eventually(() => admin(live[0]!.url, "/admin/stats"), (s) => s.body.orders.pending === 0, 60)
    for (const r of results) expect(emailsFor(r.signed.orderKey)).toHaveLength(1)
  }, 120_000)
})
