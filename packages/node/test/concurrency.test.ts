import { startResendTestServer, type ResendTestServerShape } from "@hookgate/mailer-resend/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { baseEnv, type GatewayProcess, resendEnv, startGateway, tempDir } from "./support/gateway-process.js"
import { admin, creemBody, deliver, signCreem, signStripe, stripeBody } from "./support/webhooks.js"

/** Real concurrency: parallel HTTP requests against a spawned gateway, emails counted by Resend's test server. */

let resend: ResendTestServerShape
let gateway: GatewayProcess

beforeAll(async () => {
  resend = await startResendTestServer()
  gateway = await startGateway({
    ...baseEnv(tempDir()),
    ...resendEnv(resend),
    // A thousand requests at once: here every one waits for its slot (exactly-once is under test,
    // not the admission gate's 503, which webhook-admission.test.ts covers).
    HOOKGATE_WEBHOOK_QUEUE_TIMEOUT: "5 minutes"
  })
})
afterAll(async () => {
  await gateway?.stop()
  await resend?.close()
})

const emailsFor = (orderKey: string) => resend.emails.filter((e) => e.idempotencyKey === `hookgate/order/${orderKey}`)

describe("concurrent deliveries", () => {
  it("100 concurrent requests of one signed event send one email and answer no 5xx", async () => {
    const signed = await signStripe(stripeBody("hundred"))
    resend.delayNext(1, 300) // keep the first send in flight while the others arrive
    const answers = await Promise.all(Array.from({ length: 100 }, () => deliver(gateway.url, signed)))
    expect(answers.filter((a) => a.status >= 500)).toEqual([])
    expect(answers.filter((a) => a.body.status === "sent")).toHaveLength(1)
    expect(answers.every((a) => ["sent", "in_progress", "duplicate"].includes(a.body.status as string))).toBe(true)
    expect(emailsFor(signed.orderKey)).toHaveLength(1)
  })

  it("200 orders, each delivered five times at once, send exactly one email per order", async () => {
    const orders = await Promise.all(
      Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? signStripe(stripeBody(`many-${i}`)) : signCreem(creemBody(`many-${i}`))))
    )
    // Forty orders at a time (200 requests in flight): a thousand sockets opened at once overflow
    // the listen backlog on a loaded machine, and the client's connect timeout fails the fetch.
    const answers: Array<Awaited<ReturnType<typeof deliver>>> = []
    for (let start = 0; start < orders.length; start += 40) {
      const wave = orders.slice(start, start + 40)
      answers.push(...await Promise.all(wave.flatMap((signed) => Array.from({ length: 5 }, () => deliver(gateway.url, signed)))))
    }
    expect(answers).toHaveLength(1000)
    expect(answers.filter((a) => a.status >= 500)).toEqual([])
    for (const signed of orders) expect(emailsFor(signed.orderKey)).toHaveLength(1)
    const stats = await admin(gateway.url, "/admin/stats")
    expect(stats.body.orders.sent).toBeGreaterThanOrEqual(201)
    expect(stats.body.orders.pending).toBe(0)
  }, 120_000)
})
