import { describe, expect, it, vi } from "@effect/vitest"
import { Cloudflare } from "@hookgate/cloudflare"
import { Alert } from "@hookgate/core/alerts"
import { MailerSteps, newOrder } from "@hookgate/testing"
import { HttpRouter, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { env, executionContext, harness, json, recordingTracer, webhook } from "./support.js"

describe("makeWorker: fetch", () => {
  it("serves the webhook contract and builds the layer once per isolate", async () => {
    const { builds, mailer, worker } = harness()
    const { ctx } = executionContext()
    expect(await json(await worker.fetch(await webhook("o1"), env, ctx))).toEqual({ status: 200, body: { status: "sent", orderId: "test:o1" } })
    expect(await json(await worker.fetch(await webhook("o1"), env, ctx))).toEqual({ status: 200, body: { status: "duplicate", orderId: "test:o1" } })
    const health = await worker.fetch(new Request("https://worker.example/healthz"), env, ctx)
    expect(health.status).toBe(200)
    const unsigned = await worker.fetch(new Request("https://worker.example/webhooks/test", { method: "POST", body: "{}" }), env, ctx)
    expect(await json(unsigned)).toMatchObject({ status: 401, body: { status: "unauthorized" } })
    expect(builds()).toBe(1)
    expect(await Effect.runPromise(mailer.delivered)).toHaveLength(1)
  })

  it("concurrent first requests share one build", async () => {
    const { builds, worker } = harness()
    const { ctx } = executionContext()
    const answers = await Promise.all(["a", "b", "c", "d"].map(async (id) => (await worker.fetch(await webhook(id), env, ctx)).status))
    expect(answers).toEqual([200, 200, 200, 200])
    expect(builds()).toBe(1)
  })

  it("reads secrets from env through Config: a wrong secret refuses every signature", async () => {
    const { worker } = harness()
    const { ctx } = executionContext()
    const response = await worker.fetch(await webhook("o1"), { TEST_WEBHOOK_SECRET: "whsec_other" }, ctx)
    expect(await json(response)).toMatchObject({ status: 401, body: { status: "unauthorized" } })
  })

  it("answers 503 while the layer cannot be built, and builds it on a later request", async () => {
    const { builds, worker } = harness()
    const { ctx } = executionContext()
    const missing = await worker.fetch(await webhook("o1"), {}, ctx)
    expect(await json(missing)).toEqual({ status: 503, body: { status: "unavailable" } })
    expect((await worker.fetch(await webhook("o1"), env, ctx)).status).toBe(200)
    expect((await worker.fetch(await webhook("o2"), env, ctx)).status).toBe(200)
    expect(builds()).toBe(2) // the failed attempt, then the one that is kept
  })

  it("refuses to build a layer whose retry policy outlasts the mailer's key window: 503, and the log says why", async () => {
    const lines: Array<string> = []
    const spy = vi.spyOn(console, "log").mockImplementation((line: unknown) => void lines.push(String(line)))
    try {
      const { worker } = harness({ logs: true, maxAttempts: 12, keyWindow: "24 hours" })
      const { ctx } = executionContext()
      expect(await json(await worker.fetch(await webhook("o1"), env, ctx))).toEqual({ status: 503, body: { status: "unavailable" } })
    } finally {
      spy.mockRestore()
    }
    expect(lines.join("\n")).toMatch(/12 attempts can span [\d.]+ h, past [^ ]+ idempotency-key window of 24 h/)
    // The default policy fits the same window.
    const { worker } = harness({ keyWindow: "24 hours" })
    expect((await worker.fetch(await webhook("o1"), env, executionContext().ctx)).status).toBe(200)
  })

  it("the buyer's email goes out before the answer; the owner's alert through ctx.waitUntil after it", async () => {
    let openChannel = () => {}
    const alertGate = new Promise<void>((resolve) => (openChannel = resolve))
    const { alertStore, alerted, mailer, worker } = harness({ maxAttempts: 1, alertGate, mailer: { otherwise: MailerSteps.transient() } })
    const { ctx, settle, waiting } = executionContext()
    const response = await worker.fetch(await webhook("o1"), env, ctx)
    expect(await json(response)).toEqual({ status: 200, body: { status: "capped", orderId: "test:o1" } })
    expect(await Effect.runPromise(mailer.calls)).toHaveLength(3) // tried, in-request, before answering
    // At the answer: the alert is stored and its delivery handed over; the slow channel has not answered.
    expect(alerted).toHaveLength(0)
    expect(waiting).toHaveLength(1)
    const [stored] = await Effect.runPromise(alertStore.list({ limit: 10 }))
    // The deferral is not counted as an attempt.
    expect(stored).toMatchObject({ kind: "capped", orderKey: "test:o1", deliveredAt: null, deliveryError: Cloudflare.DEFERRED_DETAIL, attempts: 0 })
    openChannel()
    await settle()
    expect(alerted.map((a) => a.kind)).toEqual(["capped"])
    const [delivered] = await Effect.runPromise(alertStore.list({ limit: 10 }))
    expect(delivered).toMatchObject({ deliveredAt: expect.any(Number), deliveryError: null, attempts: 1, nextAttemptAt: null })
  })

  it("a deferred alert that fails is recorded on the stored alert", async () => {
    const { alertStore, alerted, worker } = harness({ maxAttempts: 1, alerterFails: true, mailer: { otherwise: MailerSteps.transient() } })
    const { ctx, settle } = executionContext()
    await worker.fetch(await webhook("o1"), env, ctx)
    await settle()
    expect(alerted).toHaveLength(1)
    const [stored] = await Effect.runPromise(alertStore.list({ limit: 10 }))
    // Counted; with maxAttempts 1 that was the last attempt, so nothing is scheduled.
    expect(stored).toMatchObject({ deliveredAt: null, deliveryError: "channel down", attempts: 1, nextAttemptAt: null })
  })

  it("nothing is handed to waitUntil when nothing was deferred", async () => {
    const { worker } = harness()
    const { ctx, waiting } = executionContext()
    await worker.fetch(await webhook("o1"), env, ctx)
    expect(waiting).toHaveLength(0)
  })
})

describe("makeWorker: the HTTP server span", () => {
  // A route that answers the name of the span it runs in, if any.
  const router = HttpRouter.empty.pipe(HttpRouter.get(
    "/span",
    Effect.map(Effect.option(Effect.currentSpan), (span) =>
      HttpServerResponse.unsafeJson({ span: Option.getOrNull(Option.map(span, (s) => s.name)) }))
  ))
  const spanOf = async (worker: Cloudflare.HookgateWorker) =>
    json(await worker.fetch(new Request("https://worker.example/span"), env, executionContext().ctx))

  it("is not opened when the layer sets no tracer (Effect's default records nothing)", async () => {
    expect(await spanOf(harness({ router }).worker)).toEqual({ status: 200, body: { span: null } })
  })

  it("is kept when the layer sets a tracer", async () => {
    const { names, tracer } = recordingTracer()
    expect(await spanOf(harness({ router, tracer }).worker)).toEqual({ status: 200, body: { span: "http.server GET" } })
    expect(names).toContain("http.server GET")
  })
})

describe("makeWorker: scheduled", () => {
  it("runs one sweep: an order whose sender died is sent once its lease expired", async () => {
    const { mailer, store, worker } = harness()
    const { ctx } = executionContext()
    const now = Date.now()
    // A sender stored and leased the order ten minutes ago, then died.
    await Effect.runPromise(Effect.flatMap(newOrder("crashed"), (order) =>
      store.put(order, { token: crypto.randomUUID(), now: now - 600_000, until: now - 300_000 })))
    await worker.scheduled({ cron: "*/10 * * * *", scheduledTime: now }, env, ctx)
    const order = await Effect.runPromise(Effect.flatMap(store.get("test:crashed"), Effect.orDie))
    expect(order).toMatchObject({ status: "sent", uncertain: true })
    expect(await Effect.runPromise(mailer.delivered)).toHaveLength(1)
    // A second run finds nothing due.
    await worker.scheduled({ cron: "*/10 * * * *", scheduledTime: now }, env, ctx)
    expect(await Effect.runPromise(mailer.delivered)).toHaveLength(1)
  })

  it("logs the sweep's report as fields of one JSON line", async () => {
    const { store, worker } = harness({ logs: true })
    const { ctx } = executionContext()
    const now = Date.now()
    await Effect.runPromise(Effect.flatMap(newOrder("crashed"), (order) =>
      store.put(order, { token: crypto.randomUUID(), now: now - 600_000, until: now - 300_000 })))
    const lines: Array<string> = []
    const spy = vi.spyOn(console, "log").mockImplementation((line: unknown) => void lines.push(String(line)))
    try {
      await worker.scheduled({ cron: "*/10 * * * *", scheduledTime: now }, env, ctx)
    } finally {
      spy.mockRestore()
    }
    const sweepLine = lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((entry) => entry.message === "sweep")
    expect(sweepLine?.annotations).toMatchObject({
      scanned: 1,
      sent: 1,
      failed: 0,
      capped: 0,
      skipped: 0,
      alertsAttempted: 0,
      alertsDelivered: 0,
      cron: "*/10 * * * *"
    })
  })

  it("the cron's sweep attempts again a stored alert whose delivery failed and is due, through ctx.waitUntil", async () => {
    const { alertStore, alerted, worker } = harness()
    const { ctx, settle, waiting } = executionContext()
    const now = Date.now()
    const failed = new Alert({
      id: "capped:test:o1",
      kind: "capped",
      orderKey: "test:o1",
      message: "capped",
      createdAt: now - 120_000,
      deliveredAt: null,
      deliveryError: "channel down"
    })
    await Effect.runPromise(alertStore.save(failed))
    await Effect.runPromise(alertStore.recordAttempt(failed.id, { at: now - 120_000, error: "channel down", attempts: 1, nextAttemptAt: now - 60_000 }))
    await worker.scheduled({ cron: "*/10 * * * *", scheduledTime: now }, env, ctx)
    expect(waiting).toHaveLength(1)
    await settle()
    expect(alerted.map((a) => a.id)).toEqual([failed.id])
    const [stored] = await Effect.runPromise(alertStore.list({ limit: 10 }))
    expect(stored).toMatchObject({ deliveredAt: expect.any(Number), deliveryError: null, attempts: 2, nextAttemptAt: null })
    // Delivered: the next cron run leaves it alone.
    await worker.scheduled({ cron: "*/10 * * * *", scheduledTime: now }, env, ctx)
    await settle()
    expect(alerted).toHaveLength(1)
  })

  it("fails the cron run when the layer cannot be built", async () => {
    const { worker } = harness()
    const { ctx } = executionContext()
    await expect(worker.scheduled({ cron: "*/10 * * * *", scheduledTime: Date.now() }, {}, ctx)).rejects.toThrow()
  })
})

describe("makeWorker: queue", () => {
  it("refuses a batch from a queue with no consumer, with a clear error", async () => {
    const { worker } = harness()
    const { ctx } = executionContext()
    const message = { id: "m", body: {}, attempts: 1, ack: () => {}, retry: () => {} }
    const error = await worker.queue({ queue: "hookgate-jobs", messages: [message, { ...message, id: "n" }] }, env, ctx).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Cloudflare.QueueNotConfigured)
    expect(String((error as Error).message)).toContain("no queue consumer is configured for queue \"hookgate-jobs\"")
  })
})
