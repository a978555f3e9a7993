import { HttpRouter } from "@effect/platform"
import { CampaignStore, Campaigns } from "@hookgate/core/campaigns"
import { runningCampaign } from "@hookgate/testing/conformance"
import { consoleRoutes } from "@hookgate/core/console"
import * as Templates from "../src/console/templates.js"
import { toWebHandler, webhookRoutes } from "@hookgate/core/http"
import {
  MailerSteps,
  MemoryLedgers,
  MemoryStore,
  newOrder,
  paidEvent,
  type ScriptedMailerOptions,
  signTestRequest,
  TEST_SECRET,
  TestPipeline,
  TestProvider
} from "@hookgate/testing"
import { Attempt, newLeasedOrder, Order, ProviderReconcileSummary, ReconcileReport, RunLog, sweep } from "@hookgate/core"
import { timelineView } from "../src/console/views.js"
import { Config, Effect, Layer, Redacted } from "effect"
import { afterEach, describe, expect, it } from "vitest"

/** The console in core, on Web `Request`s: sign-in, the session cookie, CSRF, the CSP, escaping, 404 without a token. */

const TOKEN = "console-admin-token"
const ORIGIN = "http://hookgate.test"

const handlers: Array<{ dispose: () => Promise<void> }> = []
afterEach(async () => {
  await Promise.all(handlers.splice(0).map((h) => h.dispose()))
})

const gateway = (
  options: {
    token?: Parameters<typeof consoleRoutes>[0]["token"]
    sessionTtl?: string
    origin?: string
    setup?: Layer.Layer<never, never, CampaignStore>
    mailer?: ScriptedMailerOptions
    /** Run on the pipeline's services before the first request (a sweep, a run recorded). */
    before?: Layer.Layer<never, never, Layer.Layer.Success<ReturnType<typeof TestPipeline.layer>>>
  } = {}
) => {
  const testPipeline = TestPipeline.layer({
    store: MemoryStore.layer,
    providers: [TestProvider.make({ secret: TEST_SECRET })],
    ...(options.mailer ? { mailer: options.mailer } : {})
  })
  const pipeline = options.before === undefined ? testPipeline : Layer.provideMerge(options.before, testPipeline)
  // The ledgers' campaign alerts go to the same memory store as the pipeline's (one build, one instance).
  const memoryLedgers = MemoryLedgers.layer.pipe(Layer.provide(MemoryStore.layer))
  const ledgers = options.setup === undefined ? memoryLedgers : Layer.provideMerge(options.setup, memoryLedgers)
  const layer = Campaigns.layerInProcess().pipe(Layer.provideMerge(Layer.merge(pipeline, ledgers)))
  const router = HttpRouter.concat(
    webhookRoutes(),
    consoleRoutes({ token: options.token ?? Redacted.make(TOKEN), ...(options.sessionTtl ? { sessionTtl: options.sessionTtl as "1 millis" } : {}) })
  )
  const handler = toWebHandler(router, layer)
  handlers.push(handler)
  const origin = options.origin ?? ORIGIN
  let cookie: string | undefined
  const call = async (path: string, init: RequestInit & { form?: Record<string, string> } = {}) => {
    const headers = new Headers(init.headers)
    if (cookie !== undefined && !headers.has("cookie")) headers.set("cookie", cookie)
    let body: BodyInit | null = init.body ?? null
    if (init.form !== undefined) {
      headers.set("content-type", "application/x-www-form-urlencoded")
      body = new URLSearchParams(init.form).toString()
    }
    const response = await handler.handler(new Request(`${origin}${path}`, { ...init, headers, body, redirect: "manual" }))
    return { status: response.status, headers: response.headers, text: await response.text() }
  }
  const signIn = async (token = TOKEN, operator = "Ops Olga") => {
    const answer = await call("/console/sign-in", { method: "POST", form: { token, operator } })
    const set = answer.headers.get("set-cookie")
    if (set !== null && answer.headers.get("location") === "/console") cookie = set.split(";")[0]
    return answer
  }
  const csrfOf = (html: string) => /name="_csrf" value="([0-9a-f]+)"/.exec(html)?.[1]
  const setCookie = (value: string | undefined) => (cookie = value)
  return { call, signIn, csrfOf, setCookie, cookie: () => cookie }
}

const deliverPaid = async (call: ReturnType<typeof gateway>["call"], orderId: string, email = "buyer@example.com", metadata?: Record<string, string>) => {
  const body = paidEvent(`evt_${orderId}`, { orderId, email, amount: 1000, currency: "usd", ...(metadata ? { metadata } : {}) })
  const request = await Effect.runPromise(signTestRequest(TEST_SECRET, body))
  return call("/webhooks/test", { method: "POST", body, headers: request.headers })
}

describe("the console's guard", () => {
  it("answers 404 on every console path when no admin token is set (a Config not set, or empty)", async () => {
    for (const token of [Config.redacted("HOOKGATE_CONSOLE_TEST_UNSET_TOKEN"), Redacted.make("  ")]) {
      const { call } = gateway({ token })
      for (const path of ["/console", "/console/sign-in", "/console/orders", "/console/assets/console.css"]) {
        expect((await call(path)).status, path).toBe(404)
      }
      expect((await call("/console/sign-in", { method: "POST", form: { token: "", operator: "x" } })).status).toBe(404)
    }
  })

  it("sends to sign-in without a session; a wrong token sets no cookie", async () => {
    const { call, signIn } = gateway()
    const answer = await call("/console/orders")
    expect(answer.status).toBe(303)
    expect(answer.headers.get("location")).toBe("/console/sign-in")
    const wrong = await signIn("wrong-token")
    expect(wrong.headers.get("location")).toBe("/console/sign-in?failed=1")
    expect(wrong.headers.get("set-cookie")).toBeNull()
  })

  it("signs in into an HttpOnly, SameSite=Strict, expiring cookie, Secure only over HTTPS", async () => {
    const plain = await gateway().signIn()
    const cookie = plain.headers.get("set-cookie")!
    expect(cookie).toMatch(/^hookgate_console=\d+\.[0-9a-f]{32}\.[\w-]+\.[0-9a-f]{64}; Max-Age=28800; Path=\/console; HttpOnly; SameSite=Strict$/)
    const secure = await gateway({ origin: "https://hookgate.test" }).signIn()
    expect(secure.headers.get("set-cookie")).toContain("; Secure")
  })

  it("refuses an expired, tampered or forged cookie", async () => {
    const expiring = gateway({ sessionTtl: "1500 millis" })
    await expiring.signIn()
    expect((await expiring.call("/console/orders")).status).toBe(200)
    await new Promise((resolve) => setTimeout(resolve, 1600))
    expect((await expiring.call("/console/orders")).status).toBe(303)

    const g = gateway()
    await g.signIn()
    const [name, value] = g.cookie()!.split("=") as [string, string]
    const [expires, nonce, operator, mac] = value.split(".") as [string, string, string, string]
    const forged = [
      `${Number(expires) + 1}.${nonce}.${operator}.${mac}`,
      `${expires}.${nonce}.${btoa("Eve")}.${mac}`,
      `${expires}.${"0".repeat(32)}.${operator}.${mac}`,
      `${expires}.${nonce}.${operator}.${mac.slice(0, -1)}${mac.endsWith("0") ? "1" : "0"}`,
      "garbage"
    ]
    for (const bad of forged) {
      g.setCookie(`${name}=${bad}`)
      expect((await g.call("/console/orders")).status, bad).toBe(303)
    }
    // A cookie signed under another token is refused too.
    const other = gateway({ token: Redacted.make("another-token") })
    other.setCookie(`${name}=${value}`)
    expect((await other.call("/console/orders")).status).toBe(303)
  })

  it("every page carries a CSP without inline script, and the static files it allows", async () => {
    const g = gateway()
    await g.signIn()
    for (const path of ["/console/sign-in", "/console", "/console/orders", "/console/alerts", "/console/campaigns"]) {
      const answer = await g.call(path)
      expect(answer.status, path).toBe(200)
      const csp = answer.headers.get("content-security-policy")!
      expect(csp).toContain("default-src 'none'")
      expect(csp).toContain("script-src 'self'")
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/)
      expect(answer.text).not.toMatch(/<script>|<script [^>]*>[^<]|\son[a-z]+=/)
    }
    expect((await g.call("/console/assets/console.css")).headers.get("content-type")).toContain("text/css")
    expect((await g.call("/console/assets/progress.js")).headers.get("content-type")).toContain("text/javascript")
  })
})

describe("the console's forms", () => {
  it("refuse a post without the CSRF token, with another session's, or from another origin; accept the page's own", async () => {
    const g = gateway()
    await deliverPaid(g.call, "csrf-1")
    await g.signIn()
    const page = await g.call("/console/orders/test%3Acsrf-1")
    const csrf = g.csrfOf(page.text)!
    expect(csrf).toMatch(/^[0-9a-f]{64}$/)
    const other = gateway()
    await other.signIn()
    const otherCsrf = g.csrfOf((await other.call("/console")).text)!
    const post = (form: Record<string, string>, headers: Record<string, string> = {}) =>
      g.call("/console/orders/test%3Acsrf-1/send-again", { method: "POST", form, headers })
    expect((await post({ confirm: "yes" })).status).toBe(403)
    expect((await post({ confirm: "yes", _csrf: otherCsrf })).status).toBe(403)
    expect((await post({ confirm: "yes", _csrf: csrf }, { origin: "http://evil.example" })).status).toBe(403)
    const without = await post({ _csrf: csrf })
    expect(without.headers.get("location")).toBe("/console/orders/test%3Acsrf-1?done=confirm")
    const sent = await post({ _csrf: csrf, confirm: "yes" }, { origin: ORIGIN })
    expect(sent.headers.get("location")).toBe("/console/orders/test%3Acsrf-1?done=again_sent")
    // Signed out, the cookie is cleared and the old CSRF token opens nothing.
    const out = await g.call("/console/sign-out", { method: "POST", form: { _csrf: csrf } })
    expect(out.headers.get("set-cookie")).toMatch(/^hookgate_console=; Max-Age=0/)
  })
})

describe("escaping", () => {
  it("templates use only escaped Mustache tags", () => {
    for (const [name, template] of Object.entries(Templates)) {
      expect(template, name).not.toMatch(/\{\{\{|\{\{\s*&/)
    }
  })

  it("shows a hostile order's fields as text", async () => {
    const g = gateway()
    const hostile = {
      product: "<script>alert(1)</script>",
      link: "javascript:alert(1)",
      img: "\"><img src=x onerror=alert(1)>",
      rtl: "invoice\u202Egnp.exe"
    }
    await deliverPaid(g.call, "x<script>y", "buyer@example.com", hostile)
    await g.signIn()
    const list = await g.call("/console/orders?q=buyer%40example.com")
    expect(list.text).toContain("x&lt;script&gt;y")
    const page = await g.call(`/console/orders/${encodeURIComponent("test:x<script>y")}`)
    expect(page.status).toBe(200)
    expect(page.text).not.toContain("<script>alert")
    expect(page.text).not.toContain("<img")
    expect(page.text).toContain("&lt;script&gt;alert(1)&lt;&#x2F;script&gt;")
    expect(page.text).toContain("&quot;&gt;&lt;img src&#x3D;x onerror&#x3D;alert(1)&gt;")
    expect(page.text).not.toMatch(/href="javascript:/)
    expect(page.text).toContain("<bdi>invoice[U+202E]gnp.exe</bdi>")
    expect(page.text).not.toContain("\u202E")
  })
})

describe("the overview's last runs and an order's attempts", () => {
  it("the overview says when no sweep or reconciliation ran yet", async () => {
    const g = gateway()
    await g.signIn()
    const page = await g.call("/console")
    expect(page.text).toContain("No sweep recorded yet.")
    expect(page.text).toContain("No reconciliation run recorded yet.")
  })

  it("the overview shows the last sweep and the last reconciliation run, escaped", async () => {
    const hostile = "<img src=x onerror=alert(1)>"
    const reconciled = new ReconcileReport({
      dryRun: false,
      providers: [
        new ProviderReconcileSummary({
          provider: "stripe",
          since: Date.UTC(2026, 0, 1),
          seen: 45,
          known: 10,
          new: 30,
          unpaid: 5,
          unfulfillable: 0,
          failed: 0,
          cursor: Date.UTC(2026, 0, 2),
          error: { reason: "unavailable", detail: `List Events answered 503 ${hostile}`, setting: null, requestId: "req_1" }
        }),
        new ProviderReconcileSummary({
          provider: "creem",
          since: Date.UTC(2026, 0, 1),
          seen: 7,
          known: 3,
          new: 0,
          unpaid: 1,
          unfulfillable: 0,
          failed: 0,
          unsendable: 3,
          alerted: 2,
          cursor: Date.UTC(2026, 0, 2),
          error: null
        })
      ],
      skipped: [{ provider: "standard", reason: "Standard Webhooks has no list API" }]
    })
    const before = Layer.effectDiscard(Effect.gen(function*() {
      yield* sweep()
      const log = yield* RunLog
      yield* log.record({ kind: "reconcile", startedAt: Date.UTC(2026, 0, 2), finishedAt: Date.UTC(2026, 0, 2, 0, 0, 3), report: JSON.stringify(reconciled) })
    }).pipe(Effect.orDie))
    const g = gateway({ before })
    await g.signIn()
    const page = await g.call("/console")
    expect(page.status).toBe(200)
    expect(page.text).not.toContain("No sweep recorded yet.")
    expect(page.text).toMatch(/<h2>Last sweep<\/h2>\n<p>Finished <time>\d{4}-\d\d-\d\dT[\d:.]+Z<\/time>/)
    expect(page.text).toContain("<dt>Due orders found</dt><dd>0</dd>")
    expect(page.text).toContain("Finished <time>2026-01-02T00:00:03Z</time> (took 3.0 s)")
    expect(page.text).toContain("<h3><bdi>stripe</bdi></h3>")
    expect(page.text).toContain("<dt>New (no webhook had come)</dt><dd>30</dd>")
    expect(page.text).toContain("<dt>Unpaid</dt><dd>5</dd>")
    expect(page.text).toContain("Stopped early (unavailable): <bdi>List Events answered 503 &lt;img src&#x3D;x onerror&#x3D;alert(1)&gt;</bdi>")
    expect(page.text).toContain("<dt>Unsendable (paid, not rebuildable: the owner is told)</dt><dd>3</dd>")
    expect(page.text).toContain("<dt>Named in this run's alert</dt><dd>2</dd>")
    expect(page.text).toContain("Skipped <bdi>standard</bdi>")
    expect(page.text).not.toContain("<img")
  })

  it("an order's timeline lists each attempt with its outcome and error class, a hostile error as text", async () => {
    const hostile = "<script>alert(1)</script> \"><img src=x onerror=alert(2)>"
    const g = gateway({
      mailer: { script: [MailerSteps.rejected(hostile), MailerSteps.transient(), MailerSteps.transient(), MailerSteps.transient()] }
    })
    expect((await deliverPaid(g.call, "o1")).status).toBe(200) // failed: rejected for good
    const page0 = await g.signIn().then(() => g.call(`/console/orders/${encodeURIComponent("test:o1")}`))
    const csrf = g.csrfOf(page0.text)!
    const retried = await g.call(`/console/orders/${encodeURIComponent("test:o1")}/retry`, {
      method: "POST",
      form: { _csrf: csrf },
      headers: { origin: ORIGIN }
    })
    expect(retried.headers.get("location")).toContain("done=retry")
    const page = await g.call(`/console/orders/${encodeURIComponent("test:o1")}`)
    const items = [...page.text.matchAll(/<li class="([^"]+)">([\s\S]*?)<\/li>/g)].map((m) => [m[1], m[2]])
    const attempts = items.filter(([kind]) => kind!.startsWith("attempt"))
    expect(attempts.map(([kind]) => kind)).toEqual(["attempt failed", "attempt retry"])
    expect(attempts[0]![1]).toContain("<strong>attempt 1: failed for good (Rejected)</strong>")
    expect(attempts[0]![1]).toContain("&lt;script&gt;alert(1)&lt;&#x2F;script&gt; &quot;&gt;&lt;img src&#x3D;x onerror&#x3D;alert(2)&gt;")
    expect(attempts[1]![1]).toContain("<strong>attempt 1: failed, to be retried (Transient)</strong>")
    expect(attempts[1]![1]).toMatch(/<small>started \d{4}-/)
    // Received first, then the attempts in time order, then the failed order's alert after its attempt.
    expect(items[0]![0]).toBe("received")
    expect(items.map(([kind]) => kind)).toContain("alert")
    expect(page.text).not.toContain("<script>alert")
    expect(page.text).not.toContain("<img")
  })
})

describe("an order's timeline", () => {
  it("of an order stored before the attempt history: its count of failed attempts with the last error, and when it was sent", async () => {
    const stored = newLeasedOrder(await Effect.runPromise(newOrder("old")), { token: "t", now: 1_000, until: 2_000 })
    const order = new Order({ ...stored, attempts: 2, lastError: "boom", updatedAt: 5_000, sentAt: 9_000, messageId: "m1", status: "sent" })
    expect(timelineView(order, [], [], []).map((e) => [e.kind, e.label, e.detail])).toEqual([
      ["received", "received", "order.paid (evt_old)"],
      ["attempt", "2 failed attempts", "boom"],
      ["sent", "sent", "m1"]
    ])
    const attempt = new Attempt({ orderKey: order.key, number: 3, outcome: "sent", errorClass: null, detail: "m1", startedAt: 8_000, recordedAt: 9_000 })
    expect(timelineView(order, [attempt], [], []).map((e) => [e.kind, e.label])).toEqual([
      ["received", "received"],
      ["attempt sent", "attempt 3: sent"]
    ])
  })
})

describe("campaign pages", () => {
  it("show progress and the failed recipients, escaped", async () => {
    const setup = Layer.effectDiscard(Effect.gen(function*() {
      const store = yield* CampaignStore
      yield* runningCampaign("c1", ["ok@example.com", "lost@example.com", "third@example.com"])
      const reserved = yield* store.reserve("c1", 1, { size: 100, token: "tok", now: 1, until: 60_000 })
      if (reserved._tag !== "Leased") return yield* Effect.dieMessage(reserved._tag)
      yield* store.record("c1", 1, "tok", reserved.members.map((m) =>
        m.seq === 1 ? { seq: m.seq, outcome: "failed" as const, error: "<img src=x onerror=alert(1)> rejected" } : { seq: m.seq, outcome: "sent" as const, messageId: `m${m.seq}` }), 2)
    }).pipe(Effect.orDie))
    const g = gateway({ setup })
    await g.signIn()
    const page = await g.call("/console/campaigns/c1")
    expect(page.status).toBe(200)
    expect(page.text).toContain("Failed recipients")
    expect(page.text).toContain("<bdi>lost@example.com</bdi>")
    expect(page.text).toContain("&lt;img src&#x3D;x onerror&#x3D;alert(1)&gt; rejected")
    expect(page.text).not.toContain("<img")
    expect(page.text).toMatch(/<progress max="3" value="3">/)
    const progress = await g.call("/console/campaigns/c1/progress")
    expect(JSON.parse(progress.text)).toEqual({ state: "completed", total: 3, sent: 2, failed: 1, remaining: 0 })
  })
})
