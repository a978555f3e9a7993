import { startResendTestServer, type ResendTestServerShape } from "@hookgate/mailer-resend/testing"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { baseEnv, type GatewayProcess, resendEnv, startGateway, tempDir } from "./support/gateway-process.js"
import { admin, deliver, signStripe, stripeBody } from "./support/webhooks.js"

/**
 * Traces that leave the process: `hookgate serve` with OTEL_EXPORTER_OTLP_ENDPOINT exports
 * over OTLP/HTTP (JSON) to a receiver in this test, which decodes the spans. One webhook is
 * one trace, from the server span down to the mailer's HTTP call, whose `traceparent` the
 * Resend stand-in sees; its log line carries the same trace id.
 */

interface OtlpSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly kind: number
}

let receiver: Server
let receiverUrl: string
const spans: Array<OtlpSpan> = []
const exportPaths: Array<string> = []
/** Every export's raw body: the spans' attributes name the orders they belong to. */
const exportBodies: Array<string> = []
let resend: ResendTestServerShape
let gateway: GatewayProcess

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      exportPaths.push(`${request.method} ${request.url} ${request.headers["content-type"]}`)
      const raw = Buffer.concat(chunks).toString("utf8")
      exportBodies.push(raw)
      const body = JSON.parse(raw) as {
        resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<OtlpSpan> }> }>
      }
      for (const resourceSpans of body.resourceSpans) for (const scope of resourceSpans.scopeSpans) spans.push(...scope.spans)
      response.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`
  resend = await startResendTestServer()
  gateway = await startGateway({ ...baseEnv(tempDir()), ...resendEnv(resend), OTEL_EXPORTER_OTLP_ENDPOINT: receiverUrl })
}, 60_000)

afterAll(async () => {
  await gateway?.stop()
  await resend?.close()
  await new Promise((resolve) => receiver?.close(resolve))
})

const eventually = async (check: () => boolean, what: string) => {
  for (let i = 0; i < 200; i++) {
    if (check()) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`never: ${what}; spans: ${JSON.stringify(spans.map((s) => s.name))}`)
}

describe("traces over OTLP/HTTP", () => {
  it("exports one webhook as one trace: server span, hookgate's spans, the mailer's call with its traceparent; the log line has the ids", async () => {
    const signed = await signStripe(stripeBody("traced", "tracy@example.com"))
    expect((await deliver(gateway.url, signed)).body.status).toBe("sent")
    const email = resend.requests.find((r) => r.idempotencyKey === `hookgate/order/${signed.orderKey}`)!
    const traceparent = email.traceparent
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/)
    const [, traceId, clientSpanId] = traceparent!.split("-")
    await eventually(() => spans.some((s) => s.spanId === clientSpanId), "the mailer's client span exported")
    // The server span ends last, once the answer is written: it may come in a later export than the client span.
    await eventually(() => spans.some((s) => s.traceId === traceId && (s.parentSpanId === undefined || s.parentSpanId === "")), "the server span exported")
    expect(exportPaths[0]).toMatch(/^POST \/v1\/traces application\/json/)
    expect(exportBodies.some((body) => body.includes(signed.orderKey))).toBe(true)

    const trace = spans.filter((s) => s.traceId === traceId)
    const byId = new Map(trace.map((s) => [s.spanId, s]))
    const root = trace.find((s) => s.parentSpanId === undefined || s.parentSpanId === "")!
    expect(root.name).toMatch(/POST/)
    expect(root.kind).toBe(2) // SERVER
    // Every span of the trace hangs under the server span.
    const ancestry = (span: OtlpSpan): Array<string> => {
      const parent = span.parentSpanId ? byId.get(span.parentSpanId) : undefined
      return parent === undefined ? [span.name] : [...ancestry(parent), span.name]
    }
    for (const span of trace) expect(ancestry(span)[0]).toBe(root.name)
    const client = byId.get(clientSpanId!)!
    expect(client.kind).toBe(3) // CLIENT
    const path = ancestry(client)
    expect(path[0]).toBe(root.name)
    expect(path.some((name) => name.startsWith("hookgate."))).toBe(true)
    expect(trace.map((s) => s.name)).toEqual(expect.arrayContaining(["hookgate.receive", "hookgate.send", "hookgate.resend.send", "sql.execute"]))

    const outcomeLines = () => gateway.stdout().split("\n").filter((l) => l.includes(signed.orderKey) && l.includes("\"outcome\""))
    await eventually(() => outcomeLines().length > 0, "the webhook's log line")
    const line = outcomeLines().map((l) => JSON.parse(l) as { annotations: Record<string, unknown> })[0]!
    expect(line.annotations["traceId"]).toBe(traceId)
    expect(line.annotations["spanId"]).toMatch(/^[0-9a-f]{16}$/)
    expect(byId.has(String(line.annotations["spanId"]))).toBe(true)
  })

  it("runs the sweep as a trace of its own", async () => {
    await eventually(() => spans.some((s) => s.name === "hookgate.sweep"), "a sweep span exported")
    const sweep = spans.find((s) => s.name === "hookgate.sweep")!
    expect(sweep.parentSpanId ?? "").toBe("")
    expect(spans.filter((s) => s.traceId === sweep.traceId).every((s) => !s.name.startsWith("http.server"))).toBe(true)
  })
})

describe("campaign batches", () => {
  it("sends each batch as a trace of its own, apart from the request that started the campaign", async () => {
    const template = { from: "Shop <news@example.com>", subject: "Hi", text: "Hello" }
    const recipients = ["r1@example.com", "r2@example.com"]
    expect((await admin(gateway.url, "/admin/campaigns", { method: "POST", body: JSON.stringify({ id: "traced", template, recipients }) })).status).toBe(201)
    expect((await admin(gateway.url, "/admin/campaigns/traced/start", { method: "POST" })).status).toBe(200)
    await eventually(() => spans.some((s) => s.name === "hookgate.campaign.batch"), "a campaign batch span exported")
    const batch = spans.find((s) => s.name === "hookgate.campaign.batch")!
    const start = spans.find((s) => s.name === "hookgate.campaign.start")!
    expect(batch.traceId).not.toBe(start.traceId)
    expect(batch.parentSpanId ?? "").toBe("")
  })
})

describe("without OTEL_EXPORTER_OTLP_ENDPOINT", () => {
  it("exports nothing: no traceparent on the mailer's call, no trace ids in the log lines", async () => {
    const quietResend = await startResendTestServer()
    const quiet = await startGateway({ ...baseEnv(tempDir()), ...resendEnv(quietResend) })
    try {
      const signed = await signStripe(stripeBody("untraced", "quiet@example.com"))
      expect((await deliver(quiet.url, signed)).body.status).toBe("sent")
      expect(quietResend.requests.every((r) => r.traceparent === undefined)).toBe(true)
      const line = quiet.stdout().split("\n").find((l) => l.includes(signed.orderKey) && l.includes("\"outcome\""))!
      expect(JSON.parse(line).annotations).not.toHaveProperty("traceId")
      // The traced gateway above keeps exporting its own sweeps; nothing exported names this order.
      expect(exportBodies.some((body) => body.includes(signed.orderKey))).toBe(false)
    } finally {
      await quiet.stop()
      await quietResend.close()
    }
  }, 90_000)
})
