import { toWebHandler, webhookRoutes } from "@hookgate/core/http"
import {
  MailerSteps,
  MemoryStore,
  paidEvent,
  type ScriptedMailerOptions,
  signTestRequest,
  TEST_SECRET,
  TestPipeline,
  TestProvider,
  withStoreFaults
} from "@hookgate/testing"
import { Effect } from "effect"
import { afterEach, describe, expect, it } from "vitest"

const handlers: Array<{ dispose: () => Promise<void> }> = []
afterEach(async () => {
  await Promise.all(handlers.splice(0).map((h) => h.dispose()))
})

const gateway = (options: { mailer?: ScriptedMailerOptions; failPut?: number; maxBodyBytes?: number } = {}) => {
  const layer = TestPipeline.layer({
    store: withStoreFaults(MemoryStore.layer, { failPut: options.failPut ?? 0 }),
    providers: [TestProvider.make({ secret: TEST_SECRET })],
    ...(options.mailer ? { mailer: options.mailer } : {})
  })
  const handler = toWebHandler(webhookRoutes(options.maxBodyBytes ? { maxBodyBytes: options.maxBodyBytes } : {}), layer)
  handlers.push(handler)
  return handler.handler
}

const signed = async (body: string) => {
  const request = await Effect.runPromise(signTestRequest(TEST_SECRET, body))
  return { body, headers: request.headers }
}
const post = async (
  handle: (r: Request) => Promise<Response>,
  path: string,
  request: { body: BodyInit; headers: Record<string, string> }
) => {
  const response = await handle(
    new Request(`http://hookgate.test${path}`, {
      method: "POST",
      body: request.body,
      headers: request.headers,
      ...(request.body instanceof ReadableStream ? { duplex: "half" } : {})
    } as RequestInit)
  )
  return { status: response.status, body: await response.json() as Record<string, unknown> }
}
const paid = (orderId: string, email = "buyer@example.com", eventId = `evt_${orderId}`) =>
  paidEvent(eventId, { orderId, email, amount: 1000, currency: "usd" })

describe("the HTTP contract", () => {
  it("sent, then duplicate for a replay", async () => {
    const handle = gateway()
    const request = await signed(paid("o1"))
    expect(await post(handle, "/webhooks/test", request)).toEqual({ status: 200, body: { status: "sent", orderId: "test:o1" } })
    expect(await post(handle, "/webhooks/test", request)).toEqual({ status: 200, body: { status: "duplicate", orderId: "test:o1" } })
  })

  it("ignored for a verified event that needs no email", async () => {
    const handle = gateway()
    const answer = await post(handle, "/webhooks/test", await signed(JSON.stringify({ id: "evt_r", type: "refund.created" })))
    expect(answer).toEqual({ status: 200, body: { status: "ignored", eventType: "refund.created" } })
  })

  it("in_progress while another sender holds a fresh lease", async () => {
    const handle = gateway({ mailer: { script: [MailerSteps.slow("1 second")] } })
    const request = await signed(paid("o1"))
    const first = post(handle, "/webhooks/test", request)
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(await post(handle, "/webhooks/test", request)).toEqual({ status: 202, body: { status: "in_progress", orderId: "test:o1" } })
    expect((await first).body.status).toBe("sent")
  })

  it("a client that hangs up mid-send does not interrupt it: the order is recorded sent, and a replay is a duplicate", async () => {
    const handle = gateway({ mailer: { script: [MailerSteps.slow("500 millis")] } })
    const request = await signed(paid("o1"))
    const hangUp = new AbortController()
    const first = handle(
      new Request("http://hookgate.test/webhooks/test", {
        method: "POST",
        body: request.body,
        headers: request.headers,
        signal: hangUp.signal
      })
    ).catch((error: unknown) => error)
    await new Promise((resolve) => setTimeout(resolve, 150))
    hangUp.abort()
    await first
    await new Promise((resolve) => setTimeout(resolve, 700))
    // Interrupted mid-send, the order would stay leased and pending (202 in_progress) until the sweep resends it.
    expect(await post(handle, "/webhooks/test", request)).toEqual({ status: 200, body: { status: "duplicate", orderId: "test:o1" } })
  })

  it("retry (500) when the send failed and was recorded", async () => {
    const handle = gateway({ mailer: { otherwise: MailerSteps.transient() } })
    const answer = await post(handle, "/webhooks/test", await signed(paid("o1")))
    expect(answer.status).toBe(500)
    expect(answer.body).toMatchObject({ status: "retry", orderId: "test:o1" })
    expect(typeof answer.body.nextAttemptAt).toBe("string")
  })

  it("failed (200) when the mailer rejected the email for good", async () => {
    const handle = gateway({ mailer: { script: [MailerSteps.rejected()] } })
    expect(await post(handle, "/webhooks/test", await signed(paid("o1")))).toEqual({
      status: 200,
      body: { status: "failed", orderId: "test:o1" }
    })
  })

  it("unauthorized (401) for a missing, garbled or wrong signature, saying which check failed", async () => {
    const handle = gateway()
    const body = paid("o1")
    const { headers } = await signed(body)
    const cases: Array<[Record<string, string>, string]> = [
      [{}, "missing_header"],
      [{ "x-test-signature": "zz" }, "malformed_header"],
      [{ "x-test-signature": headers["x-test-signature"]!.replace(/^./, (c) => (c === "0" ? "1" : "0")) }, "no_matching_signature"]
    ]
    for (const [given, reason] of cases) {
      expect(await post(handle, "/webhooks/test", { body, headers: given })).toEqual({ status: 401, body: { status: "unauthorized", reason } })
    }
  })

  it("malformed (400) for a signed body that is not valid for the provider", async () => {
    const handle = gateway()
    expect((await post(handle, "/webhooks/test", await signed("not json {"))).status).toBe(400)
    const controlInId = await signed(paid("o1\r\nBcc: x@example.com"))
    expect(await post(handle, "/webhooks/test", controlInId)).toMatchObject({ status: 400, body: { status: "malformed" } })
  })

  it("unfulfillable (500) for a signed paying event that does not decode into a fulfilment, so the provider retries", async () => {
    const handle = gateway()
    const noEmail = await signed(JSON.stringify({ id: "evt_e", type: "order.paid", data: { orderId: "o1", amount: 100, currency: "usd" } }))
    const answer = await post(handle, "/webhooks/test", noEmail)
    expect(answer.status).toBe(500)
    expect(answer.body).toMatchObject({ status: "unfulfillable", eventId: "evt_e", objectId: "o1" })
    expect(String(answer.body.detail)).toContain("email")
  })

  it("conflict (409) for the same order key with a different payload", async () => {
    const handle = gateway()
    await post(handle, "/webhooks/test", await signed(paid("o1")))
    const other = await signed(paid("o1", "mallory@example.com", "evt_2"))
    expect(await post(handle, "/webhooks/test", other)).toEqual({ status: 409, body: { status: "conflict", orderId: "test:o1" } })
  })

  it("too_large (413) by Content-Length and by counting a streamed body", async () => {
    const handle = gateway({ maxBodyBytes: 1024 })
    const big = await signed(paid("o1").replace("}}", `,"pad":"${"x".repeat(2000)}"}}`))
    expect(await post(handle, "/webhooks/test", big)).toEqual({ status: 413, body: { status: "too_large", limitBytes: 1024 } })
    const chunks = [new Uint8Array(600), new Uint8Array(600)]
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift()
        if (next) controller.enqueue(next)
        else controller.close()
      }
    })
    expect((await post(handle, "/webhooks/test", { body: stream, headers: big.headers })).status).toBe(413)
  })

  it("unknown_provider (404)", async () => {
    const handle = gateway()
    expect(await post(handle, "/webhooks/nope", await signed(paid("o1")))).toEqual({ status: 404, body: { status: "unknown_provider" } })
  })

  it("unavailable (503) when storage fails before the order is stored; the provider's retry then succeeds", async () => {
    const handle = gateway({ failPut: 1 })
    const request = await signed(paid("o1"))
    expect(await post(handle, "/webhooks/test", request)).toEqual({ status: 503, body: { status: "unavailable" } })
    expect((await post(handle, "/webhooks/test", request)).body.status).toBe("sent")
  })

  it("GET /healthz answers 200", async () => {
    const handle = gateway()
    const response = await handle(new Request("http://hookgate.test/healthz"))
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ status: "ok", mailer: "ok" })
  })

  it("unavailable (503) while the mailer is misconfigured; /healthz stays 200 and says so", async () => {
    const handle = gateway({ mailer: { otherwise: MailerSteps.misconfigured("invalid_api_key") } })
    for (const id of ["o1", "o2"]) {
      const answer = await post(handle, "/webhooks/test", await signed(paid(id)))
      expect(answer.status).toBe(503)
      expect(answer.body).toMatchObject({ status: "unavailable", orderId: `test:${id}`, reason: "mailer_misconfigured" })
    }
    const health = await handle(new Request("http://hookgate.test/healthz"))
    expect(health.status).toBe(200)
    expect(await health.json()).toMatchObject({
      status: "ok",
      mailer: "misconfigured",
      errorClass: "Misconfigured",
      code: "invalid_api_key"
    })
  })
})
