import { describe, expect, it, vi } from "@effect/vitest"
import { Cloudflare } from "@hookgate/cloudflare"
import { webhookRoutes } from "@hookgate/core/http"
import { HttpRouter, HttpServerResponse } from "@effect/platform"
import { env, executionContext, harness, json, recordingTracer, webhook } from "./support.js"

const extra = HttpRouter.empty.pipe(HttpRouter.get("/extra", HttpServerResponse.unsafeJson({ status: "extra" })))

/** A Web request with `body` streamed, without a Content-Length. */
const chunked = (url: string, body: Uint8Array) =>
  new Request(url, {
    method: "POST",
    body: new ReadableStream({
      start(controller) {
        controller.enqueue(body)
        controller.close()
      }
    }),
    duplex: "half"
  } as RequestInit)

/** A Web request whose body fails while read (the client hung up). */
const broken = (url: string) =>
  new Request(url, {
    method: "POST",
    body: new ReadableStream({ start: (controller) => controller.error(new Error("connection reset")) }),
    duplex: "half"
  } as RequestInit)

/** The same requests through a Worker: every answer and the `webhook` log lines. */
const answersOf = async (worker: Cloudflare.HookgateWorker) => {
  const lines: Array<string> = []
  const spy = vi.spyOn(console, "log").mockImplementation((line: unknown) => void lines.push(String(line)))
  const { ctx } = executionContext()
  const answers: Array<{ status: number; body: Record<string, unknown> }> = []
  try {
    const fetch = async (request: Request | Promise<Request>) => answers.push(await json(await worker.fetch(await request, env, ctx)))
    await fetch(webhook("o1"))
    await fetch(webhook("o1"))
    const signed = await webhook("o2")
    await fetch(new Request("https://worker.example/webhooks/t%65st", { method: "POST", headers: signed.headers, body: await signed.arrayBuffer() }))
    await fetch(new Request("https://worker.example/webhooks/test", { method: "POST", body: "{}" }))
    await fetch(new Request("https://worker.example/webhooks/nobody", { method: "POST", body: "{}" }))
    await fetch(new Request("https://worker.example/webhooks/test", { method: "POST", body: "x".repeat(2048) }))
    await fetch(chunked("https://worker.example/webhooks/test", new Uint8Array(2048)))
    await fetch(broken("https://worker.example/webhooks/test"))
    await fetch(new Request("https://worker.example/webhooks/test/", { method: "POST", body: "{}" }))
    await fetch(new Request("https://worker.example/healthz"))
  } finally {
    spy.mockRestore()
  }
  const logged = lines.map((line) => JSON.parse(line) as { message: unknown; annotations: Record<string, unknown> })
    .filter((line) => line.message === "webhook")
    .map(({ annotations: { durationMs, traceId, ...fields } }) => ({
      ...fields,
      durationMs: typeof durationMs,
      // A fresh trace id per request (or the server span's), on either path.
      traceId: /^[0-9a-f]{32}$/.test(String(traceId)) ? "trace id" : traceId
    }))
  return { answers, logged }
}

describe("makeWorker: the webhook routes are always served", () => {
  it("beside the routes of `router`", async () => {
    const { worker } = harness({ router: extra })
    const { ctx } = executionContext()
    expect(await json(await worker.fetch(await webhook("o1"), env, ctx))).toEqual({ status: 200, body: { status: "sent", orderId: "test:o1" } })
    expect(await json(await worker.fetch(new Request("https://worker.example/extra"), env, ctx))).toEqual({ status: 200, body: { status: "extra" } })
    expect((await worker.fetch(new Request("https://worker.example/healthz"), env, ctx)).status).toBe(200)
    expect(await json(await worker.fetch(new Request("https://worker.example/readyz"), env, ctx))).toEqual({ status: 200, body: { status: "ready" } })
  })

  it("a `router` with a route of its own there is refused when the Worker is made, naming it", () => {
    expect(() => harness({ router: HttpRouter.concat(webhookRoutes(), extra) })).toThrow(
      /router declares POST \/webhooks\/:provider, which makeWorker always serves/
    )
    const health = HttpRouter.empty.pipe(HttpRouter.get("/healthz", HttpServerResponse.text("mine")))
    expect(() => harness({ router: health })).toThrow(/router declares GET \/healthz/)
    const ready = HttpRouter.empty.pipe(HttpRouter.get("/readyz", HttpServerResponse.text("mine")))
    expect(() => harness({ router: ready })).toThrow(/router declares GET \/readyz/)
    const any = HttpRouter.empty.pipe(HttpRouter.all("/webhooks/:provider", HttpServerResponse.text("mine")))
    expect(() => harness({ router: any })).toThrow(/router declares \* \/webhooks\/:provider/)
  })

  it("answer and log alike whether a webhook is served directly or, under a tracer, through the router", async () => {
    const { names, tracer } = recordingTracer()
    const direct = await answersOf(harness({ logs: true, webhooks: { maxBodyBytes: 1024 } }).worker)
    const routed = await answersOf(harness({ logs: true, webhooks: { maxBodyBytes: 1024 }, tracer }).worker)
    // Under the tracer every webhook went through @effect/platform's server span.
    expect(names.filter((name) => name === "http.server POST")).toHaveLength(9)
    expect(direct).toEqual(routed)
    expect(direct.answers).toEqual([
      { status: 200, body: { status: "sent", orderId: "test:o1" } },
      { status: 200, body: { status: "duplicate", orderId: "test:o1" } },
      // Decoded as the router decodes a path parameter.
      { status: 200, body: { status: "sent", orderId: "test:o2" } },
      { status: 401, body: expect.objectContaining({ status: "unauthorized" }) },
      { status: 404, body: { status: "unknown_provider" } },
      // Over the limit by Content-Length, and counted while read without one.
      { status: 413, body: { status: "too_large", limitBytes: 1024 } },
      { status: 413, body: { status: "too_large", limitBytes: 1024 } },
      // A body that could not be read: malformed, nothing stored.
      { status: 400, body: { status: "malformed", detail: "body could not be read: Decode" } },
      // A trailing slash: the router's answer, which ignores it.
      { status: 401, body: expect.objectContaining({ status: "unauthorized" }) },
      { status: 200, body: expect.objectContaining({ status: "ok" }) }
    ])
    expect(direct.logged).toHaveLength(9)
    expect(direct.logged[0]).toEqual({ provider: "test", outcome: "sent", orderKey: "test:o1", httpStatus: 200, durationMs: "number", traceId: "trace id" })
  })
})
