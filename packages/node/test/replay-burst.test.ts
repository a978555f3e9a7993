import { type ResendTestServerShape, startResendTestServer } from "@hookgate/mailer-resend/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { baseEnv, type GatewayProcess, resendEnv, startGateway, tempDir } from "./support/gateway-process.js"
import { admin, creemBody, deliver, signCreem } from "./support/webhooks.js"

/**
 * Finding 2 in a real process: one captured Creem webhook (its signature has no timestamp,
 * so it can be replayed at will) delivered again and again while Resend is down. A replay
 * before the order's next attempt is due sends nothing and counts nothing, so the burst
 * cannot cap the order; once Resend is back, exactly one email goes out.
 */

let resend: ResendTestServerShape
let gateway: GatewayProcess

beforeAll(async () => {
  resend = await startResendTestServer()
  gateway = await startGateway({
    ...baseEnv(tempDir()),
    ...resendEnv(resend),
    // 0.5 s, then about 1.5 s, 4.5 s, … (jittered ×3): the default cap of 8 is hours away at 1 minute.
    HOOKGATE_RETRY_BACKOFF: "500 millis",
    HOOKGATE_SWEEP_EVERY: "250 millis"
  })
})
afterAll(async () => {
  await gateway?.stop()
  await resend?.close()
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe("a replay burst during a mail outage", () => {
  it("answers every copy retry (or in_progress) without capping the order, and sends exactly one email once Resend is back", async () => {
    const signed = await signCreem(creemBody("burst"))
    const order = async () => (await admin(gateway.url, `/admin/orders/${encodeURIComponent(signed.orderKey)}`)).body.order
    resend.failNext(1_000_000, { status: 503, name: "internal_server_error", message: "Resend is down" })

    // At least three seconds of outage and ten copies of the webhook (more than the cap of 8
    // that each copy counting an attempt would have reached), one every 100 ms.
    const answers: Array<{ status: number; body: Record<string, unknown> }> = []
    const outageEnds = Date.now() + 3_000
    while (Date.now() < outageEnds || answers.length < 10) {
      answers.push(await deliver(gateway.url, signed))
      await sleep(100)
    }
    const during = await order()
    const callsDuringOutage = resend.requests.length
    // Each copy is told to retry (500), or in_progress (202) when it lands while the sweep holds the lease;
    // none is capped, failed or sent.
    expect(answers.map((a) => `${a.status} ${a.body.status}`).filter((a) => a !== "500 retry" && a !== "202 in_progress")).toEqual([])
    expect(answers.filter((a) => a.status === 500).length).toBeGreaterThan(answers.length / 2)
    expect(during.status).toBe("pending")
    // Only attempts the backoff allowed were counted (0 s, ~0.5 s, ~2 s, then ~6.5 s), never one per copy.
    expect(during.attempts).toBeGreaterThanOrEqual(1)
    expect(during.attempts).toBeLessThanOrEqual(4)
    expect(during.attempts).toBeLessThan(answers.length)
    expect(callsDuringOutage).toBeLessThanOrEqual(during.attempts * 3 + 3) // each attempt: at most 3 calls in-request

    // Resend is back; the provider keeps replaying now and then, and the sweep runs too.
    resend.reset()
    let sent: Record<string, any> | undefined
    for (let i = 0; i < 60 && sent === undefined; i++) {
      const answer = await deliver(gateway.url, signed)
      expect(answer.status === 500 || answer.status === 200 || answer.status === 202).toBe(true)
      const now = await order()
      if (now.status === "sent") sent = now
      else await sleep(250)
    }
    expect(sent).toMatchObject({ status: "sent" })
    expect(sent!.attempts).toBeLessThan(8)
    expect(resend.emails.filter((e) => e.idempotencyKey === `hookgate/order/${signed.orderKey}`)).toHaveLength(1)
    expect(await deliver(gateway.url, signed)).toMatchObject({ status: 200, body: { status: "duplicate" } })
  }, 30_000)
})
