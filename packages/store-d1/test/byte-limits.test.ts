import { CampaignInProcessQueue, Campaigns, CampaignStore } from "@hookgate/core/campaigns"
import { recipients, runningCampaign } from "@hookgate/testing/conformance"
import { adminRoutes, toWebHandler } from "@hookgate/core/http"
import { RetryPolicy } from "@hookgate/core"
import { Providers } from "@hookgate/core/providers"
import { RecordingAlerter, ScriptedMailer, TestRenderer } from "@hookgate/testing"
import { Effect, Layer, Logger, LogLevel, ManagedRuntime, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type D1Pool, freshStoreLayer, type ParameterTrace, startD1Pool } from "./support.js"

// D1's documented limits (https://developers.cloudflare.com/d1/platform/limits/):
// 2,000,000 bytes per string, BLOB or row; 100,000 bytes per SQL statement; 100 bound
// parameters. Campaign creation through the admin route on a real D1 (Miniflare's workerd).
let pool: D1Pool
beforeAll(async () => {
  pool = await startD1Pool(4)
})
afterAll(() => pool?.dispose())

const TOKEN = "admin-token"
const TEMPLATE = { from: "Shop <news@shop.example>", subject: "Hello {{name}}", text: "Dear {{name}}, {{note}}" }

/** The campaign routes and a runtime over the same services (queue, mailer, D1). */
const gateway = async (trace: ParameterTrace) => {
  const layer = Campaigns.layerInProcess({ concurrency: 4, maxRetries: 10 }).pipe(
    Layer.provideMerge(Layer.mergeAll(
      freshStoreLayer(() => pool, trace),
      ScriptedMailer.layer({ batch: true }),
      RecordingAlerter.layer(),
      TestRenderer.layer,
      Providers.layer(),
      RetryPolicy.layer({ inRequestBase: 0, backoffBase: "20 millis" }),
      Logger.minimumLogLevel(LogLevel.Error)
    ))
  )
  const runtime = ManagedRuntime.make(layer)
  const context = (await runtime.runtime()).context
  const web = toWebHandler(adminRoutes({ token: Redacted.make(TOKEN), campaigns: {} }), Layer.succeedContext(context))
  const call = async (path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers)
    headers.set("authorization", `Bearer ${TOKEN}`)
    const response = await web.handler(new Request(`http://hookgate.test${path}`, { ...init, headers }))
    return { status: response.status, body: await response.json() as Record<string, any> }
  }
  const run = <A, E>(effect: Effect.Effect<A, E, CampaignInProcessQueue | ScriptedMailer>) => runtime.runPromise(effect)
  return { call, run, dispose: () => web.dispose().then(() => runtime.dispose()) }
}

/** NDJSON: the campaign line, then one recipient per line. */
const ndjson = (id: string, recipients: ReadonlyArray<unknown>) => ({
  method: "POST",
  headers: { "content-type": "application/x-ndjson" },
  body: [JSON.stringify({ id, template: TEMPLATE }), ...recipients.map((r) => JSON.stringify(r))].join("\n")
})

const withNotes = (count: number, noteBytes: number) =>
  Array.from({ length: count }, (_, i) => ({ email: `r${i}@example.com`, vars: { name: `Reader ${i}`, note: "x".repeat(noteBytes) } }))

describe("D1 byte limits: campaign recipients", () => {
  it("500 recipients with 4.4 KB vars each (2.2 MB, over D1's 2,000,000-byte string as one array) are created and start (a 503 on every attempt before)", async () => {
    const trace: ParameterTrace = { statements: 0, widest: 0, widestSql: "", largestString: 0 }
    const { call, dispose } = await gateway(trace)
    try {
      const created = await call("/admin/campaigns", ndjson("big", withNotes(500, 4_400)))
      expect(created.status, JSON.stringify(created.body)).toBe(201)
      expect(created.body).toMatchObject({ state: "draft", total: 500 })
      // Every bound string stayed within the store's 1,000,000-byte arrays (half D1's limit).
      expect(trace.largestString).toBeGreaterThan(500_000)
      expect(trace.largestString).toBeLessThanOrEqual(1_000_000)
      expect(trace.widest).toBeLessThanOrEqual(100)
      expect((await call("/admin/campaigns/big/start", { method: "POST" })).status).toBe(200)
    } finally {
      await dispose()
    }
  }, 120_000)

  it("500 recipients with 10 KB vars each (5 MB) complete, one email each", async () => {
    const trace: ParameterTrace = { statements: 0, widest: 0, widestSql: "", largestString: 0 }
    const { call, dispose, run } = await gateway(trace)
    try {
      const created = await call("/admin/campaigns", ndjson("huge", withNotes(500, 10_000)))
      expect(created.status, JSON.stringify(created.body)).toBe(201)
      expect((await call("/admin/campaigns/huge/start", { method: "POST" })).status).toBe(200)
      const delivered = await run(Effect.gen(function*() {
        yield* Effect.flatMap(CampaignInProcessQueue, (q) => q.idle)
        return yield* Effect.flatMap(ScriptedMailer, (m) => m.delivered)
      }))
      expect(new Set(delivered.map((d) => d.email.to)).size).toBe(500)
      expect(delivered).toHaveLength(500)
      expect(delivered[0]!.email.text).toContain("x".repeat(10_000))
      expect((await call("/admin/campaigns/huge")).body).toMatchObject({ state: "completed", sent: 500, total: 500 })
      expect(trace.largestString).toBeLessThanOrEqual(1_000_000)
    } finally {
      await dispose()
    }
  }, 120_000)

  it("a recipient too large to ever be stored is refused with a 400 naming it, not a retryable 503", async () => {
    const { call, dispose } = await gateway({ statements: 0, widest: 0, widestSql: "" })
    try {
      const list = [...withNotes(3, 10), { email: "Whale@Example.com", vars: { note: "y".repeat(2_100_000) } }]
      const refused = await call("/admin/campaigns", ndjson("whale", list))
      expect(refused.status).toBe(400)
      expect(refused.body.status).toBe("bad_request")
      // Named by its line in the body (the first line, { id, template }, is line 1).
      expect(refused.body.detail).toContain("line 5 (whale@example.com)")
      expect(refused.body.detail).toContain("over the limit of 100000")
      // A create is all or nothing: the refused one left no draft, so the same create is
      // refused the same way (400, not a 409 over an empty draft): nothing about it is transient.
      expect((await call("/admin/campaigns", ndjson("whale", list))).status).toBe(400)
      expect((await call("/admin/campaigns?replace=true", ndjson("whale", list))).status).toBe(400)
      // And a list without it creates the campaign.
      expect((await call("/admin/campaigns", ndjson("whale", withNotes(3, 10)))).status).toBe(201)
    } finally {
      await dispose()
    }
  }, 120_000)
})

describe("D1 byte limits: a batch's recorded results", () => {
  it("100 results with 30 KB errors each (3 MB) are recorded, in more than one statement, none over 1,000,000 bytes", async () => {
    const trace: ParameterTrace = { statements: 0, widest: 0, widestSql: "", largestString: 0 }
    const program = Effect.gen(function*() {
      const store = yield* CampaignStore
      yield* runningCampaign("c1", recipients(100))
      const reserved = yield* store.reserve("c1", 1, { size: 100, token: "tok", now: 1, until: 60_000 })
      if (reserved._tag !== "Leased") return yield* Effect.dieMessage(`expected a lease, got ${reserved._tag}`)
      const before = trace.statements
      const error = "mailer said: ".padEnd(30_000, "e")
      const recorded = yield* store.record("c1", 1, "tok", reserved.members.map((m) => ({ seq: m.seq, outcome: "failed" as const, error })), 2)
      expect(recorded).toBe(100)
      expect(trace.statements - before).toBeGreaterThan(1)
      expect(yield* store.counts("c1")).toMatchObject({ failed: 100, reserved: 0 })
    })
    await Effect.runPromise(Effect.provide(program, freshStoreLayer(() => pool, trace)))
    expect(trace.largestString).toBeLessThanOrEqual(1_000_000)
  }, 60_000)
})
