import { startResendTestServer, type ResendTestServerShape } from "@hookgate/mailer-resend/testing"
import { PgTestServer } from "@hookgate/store-pg/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { baseEnv, type GatewayProcess, resendEnv, runCli, startGateway, tempDir } from "./support/gateway-process.js"
import { admin, creemBody, deliver, type Signed, signCreem, signStripe, stripeBody } from "./support/webhooks.js"

/**
 * Three real `hookgate serve` processes on one real PostgreSQL server, emails
 * counted by Resend's test server. The tests run in order and share the processes.
 */

const LEASE_MS = 20_000
/**
 * Orders in the spread test, each posted 5 times: 1,000 requests with 25 orders (125
 * requests) in flight at a time, enough for every process to send some and for copies of
 * one order to race in different processes (it was 500 orders, 2,500 requests: the same
 * races, repeated, at 2.5 times the cost of the suite's slowest test).
 */
const SPREAD_ORDERS = 200

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
    // The test machine is slow and shared: a statement waits for a connection as long as it needs.
    HOOKGATE_DB_CONNECT_TIMEOUT: "60 seconds",
    // Likewise a webhook waits for its slot among HOOKGATE_WEBHOOK_CONCURRENCY (the 503 busy is not under test here).
    HOOKGATE_WEBHOOK_QUEUE_TIMEOUT: "5 minutes",
    ...resendEnv(resend),
    HOOKGATE_LEASE: `${LEASE_MS} millis`,
    HOOKGATE_SWEEP_EVERY: "500 millis",
    HOOKGATE_CAMPAIGN_POLL: "300 millis",
    // One recorded failure caps an order, so the sweep test reaches the cap without waiting out a backoff.
    HOOKGATE_MAX_ATTEMPTS: "1"
  }
  // Started together on a fresh database: their migrations race, and must not fail.
  gateways.push(...await Promise.all([0, 1, 2].map(() => startGateway(env, { args: ["serve"] }, 75_000))))
}, 180_000)

afterAll(async () => {
  // A process that died on its own (not the SIGKILL test's victim) shows why.
  for (const [i, g] of gateways.entries()) {
    if (g.child.exitCode !== null) console.error(`gateway ${i} exited with ${g.child.exitCode}:\n${g.output().slice(-4_000)}`)
  }
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

/**
 * Posts every order's copies at the same instant, copy `c` of order `i` to process
 * `(i + c) % n`, with `parallel` orders in flight at a time (so 2 loaded cores are not
 * buried under thousands of sockets at once).
 */
const deliverSpread = async (orders: ReadonlyArray<Signed>, copies: number, parallel = 25, to = alive()) => {
  const answers: Array<Awaited<ReturnType<typeof deliver>>> = []
  let next = 0
  const lane = async () => {
    for (let i = next++; i < orders.length; i = next++) {
      const signed = orders[i]!
      answers.push(...await Promise.all(Array.from({ length: copies }, (_, c) => deliver(to[(i + c) % to.length]!.url, signed))))
    }
  }
  await Promise.all(Array.from({ length: parallel }, lane))
  return answers
}

describe("several gateway processes on one Postgres", () => {
  it(`${SPREAD_ORDERS} orders, each posted 5 times spread across three processes at once: one email per order, no 5xx`, async () => {
    const orders = await Promise.all(Array.from({ length: SPREAD_ORDERS }, (_, i) => sign(`multi-${i}`, i)))
    const answers = await deliverSpread(orders, 5)
    expect(answers.filter((a) => a.status >= 500)).toEqual([])
    // One copy sends; the others find it sent or in progress. (On a starved machine a send can
    // outlast its lease, and a second process resends under the same key: two `sent` answers, one email.)
    expect(answers.filter((a) => !["sent", "duplicate", "in_progress"].includes(a.body.status as string))).toEqual([])
    for (const signed of orders) expect(emailsFor(signed.orderKey)).toHaveLength(1)
    // Every process sent some of them.
    for (const gateway of gateways) expect(await metric(gateway, "hookgate_sends_total", `outcome="accepted"`)).toBeGreaterThan(0)
    const stats = await admin(gateways[0]!.url, "/admin/stats")
    expect(stats.body.orders).toMatchObject({ sent: SPREAD_ORDERS, pending: 0 })
  }, 300_000) // 1,000 requests: minutes when 2 cores are shared by several test runs

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
    for (const signed of swept) {
      const emails = emailsFor(signed.orderKey)
      if (emails.length !== 1) {
        const order = await admin(gateways[0]!.url, `/admin/orders/${encodeURIComponent(signed.orderKey)}`)
        const requests = resend.requests.filter((r) => JSON.stringify(r).includes(signed.orderKey))
        console.error(JSON.stringify({ order: order.body, requests }, null, 1).slice(0, 6000))
      }
      expect(emails).toHaveLength(1)
    }

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
  }, 180_000)

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
  }, 180_000)

  it("SIGKILL one process while it holds leases mid-send: after the lease expires the others finish its orders, one email each", async () => {
    const [survivor, other, victim] = gateways as [GatewayProcess, GatewayProcess, GatewayProcess]
    const orders = await Promise.all(Array.from({ length: 40 }, (_, i) => sign(`killed-${i}`, i)))
    const pendingBefore = (await admin(survivor.url, "/admin/stats")).body.orders.pending as number
    // The victim's sends stay in flight (under the send timeout, half the lease) when it dies.
    resend.delayNext(40, 8_000)
    const cut = Promise.all(orders.map((signed) => deliver(victim.url, signed).then((a) => a.status, () => 0)))
    await eventually(() => admin(survivor.url, "/admin/stats"), (s) => s.body.orders.pending >= pendingBefore + 10)
    victim.child.kill("SIGKILL")
    await victim.exited
    expect((await cut).filter((status) => status !== 0)).toEqual([]) // no answer: the process died holding the leases

    // The provider retries every unanswered webhook at the survivors: the orders the victim
    // never stored are sent now; those it holds answer `in_progress` until their lease expires.
    const retried = await Promise.all(orders.map((signed, i) => deliver((i % 2 === 0 ? survivor : other).url, signed)))
    expect(retried.filter((a) => !["sent", "in_progress", "duplicate"].includes(a.body.status as string))).toEqual([])
    const held = retried.filter((a) => a.body.status === "in_progress").length
    expect(held).toBeGreaterThanOrEqual(10)

    // The leases expire; the sweeps of the two survivors take those orders over, under the same key.
    await eventually(() => admin(survivor.url, "/admin/stats"), (s) => s.body.orders.pending === pendingBefore, 90)
    for (const signed of orders) expect(emailsFor(signed.orderKey)).toHaveLength(1)
    const states = await Promise.all(orders.map((signed) => admin(survivor.url, `/admin/orders/${encodeURIComponent(signed.orderKey)}`)))
    expect(states.every((s) => s.body.order.status === "sent")).toBe(true)
    expect(states.filter((s) => s.body.order.uncertain === true).length).toBe(held)
    expect((await admin(survivor.url, "/admin/stats")).body.possibleDuplicates).toBe(0)
  }, 180_000)

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
    await eventually(async () => results.length, (n) => n >= 8)
    await postgres.stop()
    // While it is down, a new order answers 503 `unavailable` in every process.
    const whileDown = await Promise.all(live.map(async (gateway, i) => {
      const signed = await signStripe(stripeBody(`while-down-${i}`))
      const answer = await deliver(gateway.url, signed)
      results.push({ signed, ...answer })
      return answer
    }))
    await postgres.restart()
    const upAt = results.length
    await eventually(async () => results.slice(upAt).filter((r) => r.status === 200).length, (n) => n >= 8)
    running = false
    await load

    expect(whileDown.map((a) => [a.status, a.body.status])).toEqual(live.map(() => [503, "unavailable"]))
    // Every answer is a success or 503 unavailable; after the restart, requests succeed again.
    expect(results.filter((r) => !(r.status === 200 || (r.status === 503 && r.body.status === "unavailable")))).toEqual([])
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
  }, 180_000)

  it("the hookgate commands work against the same Postgres; the URL's password is never shown", async () => {
    expect(gateways[0]!.output()).toMatch(/database\s+127\.0\.0\.1:\d+\/gateway_\d+ \(Postgres\)/)
    const live = alive()
    const recent = await Promise.all([0, 1, 2].map((i) => sign(`cli-${i}`, i)))
    for (const [i, signed] of recent.entries()) expect((await deliver(live[i % live.length]!.url, signed)).body.status).toBe("sent")
    const sent = await runCli(env, ["orders", "list", "--status", "sent", "--limit", "3"])
    expect(sent.code).toBe(0)
    expect(sent.stdout.match(/(stripe|creem):\S+\s+sent/g)).toHaveLength(3)
    const campaign = await runCli(env, ["campaigns", "status", "big"])
    expect(campaign.stdout).toMatch(/big\s+completed\s+5000\s+5000\s/)

    const secret = "pw-never-shown-9d2e"
    const refused = await runCli({ ...env, HOOKGATE_DATABASE_URL: `postgres://hookgate:${secret}@127.0.0.1:1/orders` }, ["orders", "list"])
    expect(refused.code).not.toBe(0)
    expect(refused.stdout + refused.stderr).toContain("127.0.0.1:1/orders")
    expect(refused.stdout + refused.stderr).not.toContain(secret)
  }, 60_000)
})
