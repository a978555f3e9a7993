import { paidEvent, signTestRequest } from "@hookgate/testing"
import { Effect, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { IDEMPOTENCY_HEADER } from "../src/CloudflareEmail.js"
import { SECRET, startWorker, type TestWorker } from "./support.js"

/**
 * The pipeline runs inside the Worker (workerd, via Miniflare): in-memory
 * store, test provider, recording alerter, and the Cloudflare mailer on
 * Miniflare's `send_email` bindings. The test signs webhooks and reads back what
 * the bindings received.
 */
let worker: TestWorker
beforeAll(async () => {
  worker = await startWorker()
})
afterAll(() => worker?.dispose())

const webhook = async (mode: string, orderId: string) => {
  const request = await Effect.runPromise(
    signTestRequest(
      Redacted.make(SECRET),
      paidEvent(`evt_${orderId}`, { orderId, email: `${orderId}@example.com`, product: "course-101", amount: 1900, currency: "usd" })
    )
  )
  return worker.json(`/${mode}/webhook`, { method: "POST", body: request.text, headers: request.headers })
}
const order = (mode: string, id: string) => worker.json(`/${mode}/order?key=${encodeURIComponent(`test:${id}`)}`)
const receivedFor = async (to: string, atLeast: number) =>
  (await worker.received(atLeast)).filter((r) =>
    r.form === "sending" ? r.to === to : r.email.to?.some((address) => address.address === to)
  )

describe("the pipeline in Workers, sending through Cloudflare's email binding", () => {
  it("happy path, Email Sending form: sent once; a replay is a duplicate", async () => {
    const before = (await worker.received()).length
    const outcome = await webhook("sending", "o1")
    expect(outcome).toMatchObject({ _tag: "Sent", orderKey: "test:o1" })
    expect(await order("sending", "o1")).toMatchObject({ status: "sent", messageId: outcome.messageId })
    expect(await receivedFor("o1@example.com", before + 1)).toEqual([
      {
        form: "sending",
        from: "shop@example.com",
        to: "o1@example.com",
        subject: "Your order test:o1",
        text: "Thank you for buying course-101. Order test:o1.",
        html: undefined
      }
    ])
    expect(await webhook("sending", "o1")).toMatchObject({ _tag: "Duplicate" })
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(await receivedFor("o1@example.com", 0)).toHaveLength(1)
  })

  it("happy path, Email Routing form: the raw message carries the order's key", async () => {
    const before = (await worker.received()).length
    expect(await webhook("routing", "o2")).toMatchObject({ _tag: "Sent" })
    const [received] = await receivedFor("o2@example.com", before + 1)
    if (received?.form !== "routing") throw new Error("expected a raw message")
    expect(received.email.from).toEqual({ address: "shop@example.com", name: "" })
    expect(received.email.subject).toBe("Your order test:o2")
    expect(received.email.text?.trim()).toBe("Thank you for buying course-101. Order test:o2.")
    expect(received.email.headers.find((h) => h.key === IDEMPOTENCY_HEADER.toLowerCase())?.value).toBe(
      "hookgate/order/test:o2"
    )
  })

  it("a rate-limit error is retried in the request and the email goes out once", async () => {
    const before = (await worker.received()).length
    await worker.fetch("/script?rateLimited=1", { method: "POST" })
    expect(await webhook("sending-flaky", "o3")).toMatchObject({ _tag: "Sent" })
    expect(await receivedFor("o3@example.com", before + 1)).toHaveLength(1)
    const calls = await worker.json<Array<any>>("/recorded")
    expect(calls.slice(-2).map((c) => (c.rateLimited ? "rate limited" : c.to))).toEqual(["rate limited", "o3@example.com"])
  })

  it("a rate limit that outlasts the request is recorded and retried by the sweep", async () => {
    const before = (await worker.received()).length
    await worker.fetch("/script?rateLimited=3", { method: "POST" }) // the first try and both in-request retries
    const outcome = await webhook("sending-flaky", "o4")
    expect(outcome).toMatchObject({ _tag: "Retry" })
    expect(outcome.error).toContain("E_RATE_LIMIT_EXCEEDED")
    const pending = await order("sending-flaky", "o4")
    expect(pending).toMatchObject({ status: "pending", attempts: 1, uncertain: false })

    await new Promise((resolve) => setTimeout(resolve, Math.max(0, pending.nextAttemptAt - Date.now()) + 20))
    expect(await worker.json("/sending-flaky/sweep", { method: "POST" })).toMatchObject({ scanned: 1, sent: 1 })
    expect(await order("sending-flaky", "o4")).toMatchObject({ status: "sent", attempts: 1 })
    expect(await receivedFor("o4@example.com", before + 1)).toHaveLength(1)
  })

  it("a recipient the binding does not allow is recorded as rejected, and the operator is told", async () => {
    const before = (await worker.received()).length
    const outcome = await webhook("routing", "stranger")
    expect(outcome).toMatchObject({ _tag: "Failed", orderKey: "test:stranger" })
    const failed = await order("routing", "stranger")
    expect(failed).toMatchObject({ status: "failed", attempts: 1 })
    expect(failed.lastError).toContain("email to stranger@example.com not allowed")
    const alerts = await worker.json("/routing/alerts")
    expect(alerts.attempted.map((a: any) => [a.kind, a.orderKey])).toEqual([["failed", "test:stranger"]])
    expect(alerts.stored).toHaveLength(1)
    expect(alerts.stored[0].deliveredAt).not.toBeNull()
    // Nothing reached the binding's output, and the sweep leaves it alone.
    expect((await worker.received()).length).toBe(before)
    expect(await worker.json("/routing/sweep", { method: "POST" })).toMatchObject({ scanned: 0 })
  })
})
