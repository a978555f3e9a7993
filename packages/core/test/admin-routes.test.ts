import { Campaigns } from "@hookgate/core/campaigns"
import { adminRoutes, toWebHandler } from "@hookgate/core/http"
import {
  MailerSteps,
  MemoryLedgers,
  MemoryStore,
  paidEvent,
  signTestRequest,
  TEST_SECRET,
  TestPipeline,
  type TestPipelineOptions,
  TestProvider
} from "@hookgate/testing"
import { HttpRouter } from "@effect/platform"
import { webhookRoutes } from "@hookgate/core/http"
import { Config, ConfigProvider, Effect, Layer, Redacted } from "effect"
import { afterEach, describe, expect, it } from "vitest"

/** The admin API in core: one token guard in front of the order and campaign routes, on Web `Request`s. */

const TOKEN = "s3cret-admin-token"

const handlers: Array<{ dispose: () => Promise<void> }> = []
afterEach(async () => {
  await Promise.all(handlers.splice(0).map((h) => h.dispose()))
})

const gateway = (options: Pick<TestPipelineOptions<never, never>, "alerterFails" | "mailer" | "policy"> = {}) => {
  const pipeline = TestPipeline.layer({ store: MemoryStore.layer, providers: [TestProvider.make({ secret: TEST_SECRET })], ...options })
  const layer = Campaigns.layerInProcess().pipe(Layer.provideMerge(MemoryLedgers.layer.pipe(Layer.provideMerge(pipeline))))
  const router = HttpRouter.concat(webhookRoutes(), adminRoutes({ token: Redacted.make(TOKEN), campaigns: {} }))
  const handler = toWebHandler(router, layer)
  handlers.push(handler)
  return async (path: string, init: RequestInit & { token?: string | null; authorization?: string } = {}) => {
    const headers = new Headers(init.headers)
    const authorization = init.authorization ?? (init.token === null ? undefined : `Bearer ${init.token ?? TOKEN}`)
    if (authorization !== undefined) headers.set("authorization", authorization)
    const response = await handler.handler(new Request(`http://hookgate.test${path}`, { ...init, headers }))
    return { status: response.status, body: await response.json() as Record<string, any> }
  }
}

const deliverPaid = async (call: ReturnType<typeof gateway>, orderId: string) => {
  const body = paidEvent(`evt_${orderId}`, { orderId, email: "buyer@example.com", amount: 1000, currency: "usd" })
  const request = await Effect.runPromise(signTestRequest(TEST_SECRET, body))
  return call("/webhooks/test", { method: "POST", body, headers: request.headers, token: null })
}

describe("the admin token guard", () => {
  it("answers 401 { status: unauthorized } on every admin route without the exact bearer token", async () => {
    const call = gateway()
    const refused = [
      { token: null },
      { token: "wrong" }, // shorter
      { token: `${TOKEN}x` }, // longer
      { token: TOKEN.replace("s", "S") }, // same length, one byte off
      { authorization: TOKEN }, // no scheme
      { authorization: `bearer ${TOKEN.toUpperCase()}` }, // the scheme is case-insensitive, the token is not
      { authorization: `Bearer  ${TOKEN}` },
      { authorization: `bearer  ${TOKEN}` },
      { authorization: `Bearer${TOKEN}` }
    ]
    const routes: Array<[string, RequestInit]> = [
      ["/admin/stats", {}],
      ["/admin/orders", {}],
      ["/admin/orders/test%3Ao1", {}],
      ["/admin/orders/test%3Ao1/retry", { method: "POST", body: JSON.stringify({ confirm: true }) }],
      ["/admin/alerts", {}],
      ["/admin/sweep", { method: "POST" }],
      ["/admin/runs", {}],
      ["/admin/reconcile", { method: "POST" }],
      ["/admin/campaigns", {}],
      ["/admin/campaigns", { method: "POST", body: JSON.stringify({ id: "c1", template: { from: "a@example.com", subject: "s", text: "t" } }) }],
      ["/admin/campaigns/c1/start", { method: "POST" }]
    ]
    for (const [path, init] of routes) {
      for (const auth of refused) {
        expect({ path, auth, answer: await call(path, { ...init, ...auth }) })
          .toEqual({ path, auth, answer: { status: 401, body: { status: "unauthorized" } } })
      }
    }
    // Nothing behind the guard ran: no campaign was created.
    expect(await call("/admin/campaigns")).toEqual({ status: 200, body: { campaigns: [] } })
  })

  it("takes the Bearer scheme in any case (HTTP auth schemes are case-insensitive)", async () => {
    const call = gateway()
    for (const scheme of ["bearer", "BEARER", "BeArEr"]) {
      expect({ scheme, answer: await call("/admin/stats", { authorization: `${scheme} ${TOKEN}` }) })
        .toMatchObject({ scheme, answer: { status: 200, body: { orders: { sent: 0 } } } })
    }
  })

  it("lets the right token through to the order routes", async () => {
    const call = gateway()
    expect((await deliverPaid(call, "o1")).body).toMatchObject({ status: "sent", orderId: "test:o1" })
    expect(await call("/admin/stats")).toMatchObject({ status: 200, body: { orders: { sent: 1 } } })
    const listed = await call("/admin/orders?status=sent&limit=10")
    expect(listed.body.orders.map((o: { key: string }) => o.key)).toEqual(["test:o1"])
    expect(await call("/admin/orders?status=bogus")).toMatchObject({ status: 400, body: { status: "bad_request" } })
    const one = await call("/admin/orders/test%3Ao1")
    expect(one).toMatchObject({ status: 200, body: { order: { key: "test:o1", status: "sent" } } })
    expect(one.body.receipts).toEqual(expect.any(Array)) // the memory store keeps no receipts
    expect(one.body.attempts).toMatchObject([{ orderKey: "test:o1", number: 1, outcome: "sent", errorClass: null }])
    expect(await call("/admin/orders/test%3Anope")).toEqual({ status: 404, body: { status: "not_found", orderId: "test:nope" } })
    const retry = "/admin/orders/test%3Ao1/retry"
    expect(await call(retry, { method: "POST", body: "{}" })).toMatchObject({ status: 400, body: { status: "confirm_required" } })
    expect(await call(retry, { method: "POST", body: JSON.stringify({ confirm: true }) }))
      .toMatchObject({ status: 409, body: { status: "not_retryable" } })
    expect(await call("/admin/alerts")).toEqual({ status: 200, body: { alerts: [] } })
    expect(await call("/admin/runs")).toEqual({ status: 200, body: { sweep: null, reconcile: null } })
    const swept = await call("/admin/sweep", { method: "POST" })
    expect(swept).toMatchObject({ status: 200 })
    const runs = await call("/admin/runs")
    expect(runs).toMatchObject({ status: 200, body: { sweep: { report: swept.body, startedAt: expect.any(Number) }, reconcile: null } })
  })

  it("shows each alert's delivery attempts, and the sweep's report counts the alerts it attempted", async () => {
    const call = gateway({ alerterFails: true, mailer: { otherwise: MailerSteps.transient() }, policy: { maxAttempts: 1 } })
    expect((await deliverPaid(call, "o1")).body).toMatchObject({ status: "capped" })
    const { alerts } = (await call("/admin/alerts")).body
    // One attempt, failed; with maxAttempts 1 none is scheduled: left for the operator.
    expect(alerts).toMatchObject([{ kind: "capped", orderKey: "test:o1", deliveredAt: null, deliveryError: "alert channel is down", attempts: 1, nextAttemptAt: null }])
    expect(await call("/admin/sweep", { method: "POST" })).toMatchObject({ status: 200, body: { alertsAttempted: 0, alertsDelivered: 0 } })
  })

  it("lets the right token through to the campaign routes", async () => {
    const call = gateway()
    const created = await call("/admin/campaigns", {
      method: "POST",
      body: JSON.stringify({ id: "c1", template: { from: "shop@example.com", subject: "Hi", text: "Hello" }, recipients: ["a@example.com"] })
    })
    expect(created).toMatchObject({ status: 201, body: { id: "c1", total: 1 } })
    expect(await call("/admin/campaigns/nope")).toMatchObject({ status: 404, body: { status: "not_found" } })
  })

  it("mounts only the order routes without `campaigns`", async () => {
    const handler = toWebHandler(
      adminRoutes({ token: Redacted.make(TOKEN) }),
      TestPipeline.layer({ store: MemoryStore.layer, providers: [] })
    )
    handlers.push(handler)
    const get = (path: string) => handler.handler(new Request(`http://hookgate.test${path}`, { headers: { authorization: `Bearer ${TOKEN}` } }))
    expect((await get("/admin/stats")).status).toBe(200)
    expect((await get("/admin/campaigns")).status).toBe(404)
  })

  it("reads a Config token on each request; an unset one lets nobody in", async () => {
    const token = Config.redacted("HOOKGATE_ADMIN_TOKEN")
    const withConfig = (entries: ReadonlyArray<[string, string]>) => {
      const handler = toWebHandler(
        adminRoutes({ token }),
        TestPipeline.layer({ store: MemoryStore.layer, providers: [] }).pipe(
          Layer.provideMerge(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(entries))))
        )
      )
      handlers.push(handler)
      return (authorization?: string) =>
        handler.handler(new Request("http://hookgate.test/admin/stats", authorization ? { headers: { authorization } } : {}))
          .then((response) => response.status)
    }
    const set = withConfig([["HOOKGATE_ADMIN_TOKEN", TOKEN]])
    expect(await set(`Bearer ${TOKEN}`)).toBe(200)
    expect(await set("Bearer wrong")).toBe(401)
    expect(await set()).toBe(401)
    const unset = withConfig([])
    expect(await unset(`Bearer ${TOKEN}`)).toBe(401)
    expect(await unset("Bearer ")).toBe(401)
    expect(await unset()).toBe(401)
    // An empty token is no token: "Bearer " must not open the routes.
    const empty = withConfig([["HOOKGATE_ADMIN_TOKEN", ""]])
    expect(await empty("Bearer ")).toBe(401)
    expect(await empty("Bearer")).toBe(401)
  })

  it("an empty Redacted token lets nobody in", async () => {
    const handler = toWebHandler(adminRoutes({ token: Redacted.make(" ") }), TestPipeline.layer({ store: MemoryStore.layer, providers: [] }))
    handlers.push(handler)
    for (const authorization of ["Bearer  ", "Bearer ", "Bearer"]) {
      const response = await handler.handler(new Request("http://hookgate.test/admin/stats", { headers: { authorization } }))
      expect(response.status).toBe(401)
    }
  })
})

describe("POST /admin/reconcile", () => {
  it("answers the run's report; a body that does not parse, or a since that is not a duration, is 400", async () => {
    const call = gateway()
    const run = await call("/admin/reconcile", { method: "POST" })
    // The test provider offers no listing: skipped, with why.
    expect(run).toMatchObject({ status: 200, body: { status: "ok", dryRun: false, providers: [], newOrders: 0 } })
    expect(run.body["skipped"]).toEqual([{ provider: "test", reason: "the plugin offers no listing" }])
    expect((await call("/admin/reconcile", { method: "POST", body: JSON.stringify({ since: "72h", dryRun: true }) })).body)
      .toMatchObject({ status: "ok", dryRun: true })
    expect(await call("/admin/reconcile", { method: "POST", body: "{not json" })).toMatchObject({ status: 400, body: { status: "bad_request" } })
    expect(await call("/admin/reconcile", { method: "POST", body: JSON.stringify({ since: "soon" }) }))
      .toMatchObject({ status: 400, body: { status: "bad_request", detail: "since: \"soon\" is not a duration" } })
    expect((await call("/admin/reconcile", { method: "POST", token: null })).status).toBe(401)
  })
})
