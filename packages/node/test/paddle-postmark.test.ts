import { startPostmarkTestServer } from "@hookgate/mailer-postmark/testing"
import { startPaddleTestServer } from "@hookgate/provider-paddle/testing"
import { describe, expect, it } from "vitest"
import { allLeased, orderOf, sleep, waitFor } from "./support/acceptance.js"
import { ADMIN_TOKEN, baseEnv, type GatewayProcess, PADDLE_SECRET, postmarkEnv, startGateway, tempDir } from "./support/gateway-process.js"
import { admin, deliver, paddleBody, signPaddle } from "./support/webhooks.js"

/**
 * A Paddle shop sending through Postmark, over real processes: the `hookgate` binary with
 * PADDLE_WEBHOOK_SECRET, PADDLE_API_KEY and HOOKGATE_MAILER=postmark, against the stand-ins of
 * Paddle's customer API and Postmark's Email API (each package's `/testing`).
 */

const paddleEnv = (dir: string, paddle: { readonly url: string; readonly apiKey: string }) => {
  const { CREEM_WEBHOOK_SECRET: _c, STRIPE_WEBHOOK_SECRET: _s, ...rest } = baseEnv(dir)
  return { ...rest, PADDLE_WEBHOOK_SECRET: PADDLE_SECRET, PADDLE_API_KEY: paddle.apiKey, PADDLE_API_BASE_URL: paddle.url }
}

const customerFetches = (paddle: { readonly requests: ReadonlyArray<{ readonly path: string }> }) =>
  paddle.requests.filter((r) => r.path.startsWith("/customers/")).length

describe("Paddle + Postmark, through the hookgate binary", () => {
  it("a paid transaction is one Postmark email to the customer Paddle's API names, fetched once; its other events and replays send nothing more", async () => {
    const paddle = await startPaddleTestServer()
    const postmark = await startPostmarkTestServer()
    const gateway = await startGateway({ ...paddleEnv(tempDir(), paddle), ...postmarkEnv(postmark), HOOKGATE_SWEEP_EVERY: "1 hour" })
    try {
      expect(gateway.output()).toContain("paddle (POST")
      expect(gateway.output()).toContain(`mailer     postmark (${postmark.url})`)
      const customer = paddle.addCustomer({ email: "grace@example.com" })
      const paid = await signPaddle(paddleBody("txn_01acceptance", customer, "transaction.paid"))
      expect(await deliver(gateway.url, paid)).toEqual({ status: 200, body: { status: "sent", orderId: "paddle:txn_01acceptance" } })
      expect(postmark.emails).toHaveLength(1)
      expect(postmark.emails[0]).toMatchObject({ to: "grace@example.com", endpoint: "/email" })
      expect(postmark.emails[0]!.textBody).toContain("paddle:txn_01acceptance")
      expect(customerFetches(paddle)).toBe(1)

      // transaction.completed follows for the same transaction; Paddle retries both, several at once.
      const completed = await signPaddle(paddleBody("txn_01acceptance", customer, "transaction.completed"))
      expect((await deliver(gateway.url, completed)).body.status).toBe("duplicate")
      const burst = await Promise.all(Array.from({ length: 5 }, async () => deliver(gateway.url, await signPaddle(paid.body))))
      expect(burst.map((a) => a.body.status).every((s) => s === "duplicate" || s === "in_progress")).toBe(true)
      // The stored order answers every replay: Paddle's API is not called again.
      expect(customerFetches(paddle)).toBe(1)
      // A delivery signed long ago is refused (Paddle's 5-second tolerance), and a forged one.
      const stale = { ...completed, headers: { ...completed.headers, "paddle-signature": completed.headers["paddle-signature"]!.replace(/ts=\d+/, "ts=1000000000") } }
      expect((await deliver(gateway.url, stale)).status).toBe(401)
      expect((await deliver(gateway.url, await signPaddle(completed.body, "pdl_ntfset_someone_else"))).status).toBe(401)

      expect(postmark.emails).toHaveLength(1)
      const stats = await admin(gateway.url, "/admin/stats", {}, ADMIN_TOKEN)
      expect(stats.body.orders.sent).toBe(1)
      // No secret, API key or server token reaches a log line.
      for (const secret of [PADDLE_SECRET, paddle.apiKey, postmark.serverToken]) expect(gateway.output()).not.toContain(secret)
    } finally {
      await gateway.stop()
      await postmark.close()
      await paddle.close()
    }
  }, 90_000)

  it("a gateway killed with SIGKILL while Postmark stalls sends each order once after its restart, without fetching the customers again", async () => {
    const ORDERS = 6
    const paddle = await startPaddleTestServer()
    const postmark = await startPostmarkTestServer()
    const env = {
      ...paddleEnv(tempDir(), paddle),
      ...postmarkEnv(postmark),
      POSTMARK_TIMEOUT: "4 seconds",
      HOOKGATE_LEASE: "6 seconds", // must exceed POSTMARK_TIMEOUT by the lease margin
      HOOKGATE_SWEEP_EVERY: "1 hour"
    }
    const gateways: Array<GatewayProcess> = []
    try {
      const first = await startGateway(env)
      gateways.push(first)
      const customers = Array.from({ length: ORDERS }, (_, i) => paddle.addCustomer({ email: `buyer-${i}@example.com` }))
      const bodies = customers.map((customer, i) => paddleBody(`txn_01crash${i}`, customer))
      const keys = bodies.map((_, i) => `paddle:txn_01crash${i}`)
      // Postmark holds every request unanswered (and unaccepted) for longer than this test.
      postmark.delayNext(ORDERS, 600_000)
      const inFlight = bodies.map(async (body) => deliver(first.url, await signPaddle(body)).catch(() => ({ status: 0, body: {} })))
      await waitFor(() => allLeased(first.url, keys), (leased) => leased, "every order stored and leased")
      await sleep(500) // the requests on their way to Postmark, held there
      const killedAt = Date.now()
      await first.stop("SIGKILL")
      await Promise.all(inFlight)
      expect(customerFetches(paddle)).toBe(ORDERS)
      expect(postmark.emails).toHaveLength(0)
      postmark.reset() // forget the delays no request of the dead process reached

      const second = await startGateway(env)
      gateways.push(second)
      await sleep(Math.max(0, killedAt + 6_500 - Date.now()))
      const report = await admin(second.url, "/admin/sweep", { method: "POST" }, ADMIN_TOKEN)
      expect(report.status).toBe(200)
      // On a slow machine the restart's own first sweep may already hold some (leases expired by then): wait for it.
      await waitFor(() => Promise.all(keys.map((key) => orderOf(second.url, key))), (all) => all.every((o) => o?.status === "sent"), "every order sent")
      // Postmark honours no idempotency key: the dead process may have sent, so each resend is flagged.
      for (const key of keys) expect(await orderOf(second.url, key)).toMatchObject({ uncertain: true, possibleDuplicates: 1 })
      for (const body of bodies) {
        // Paddle's retry of the unanswered webhook, signed anew: a duplicate.
        expect((await deliver(second.url, await signPaddle(body))).body.status).toBe("duplicate")
      }
      expect(postmark.emails).toHaveLength(ORDERS)
      expect(new Set(postmark.emails.map((e) => e.to))).toEqual(new Set(customers.map((_, i) => `buyer-${i}@example.com`)))
      // The sweep and the retries read the emails stored with the orders.
      expect(customerFetches(paddle)).toBe(ORDERS)
    } finally {
      await Promise.all(gateways.map((gateway) => gateway.stop("SIGKILL")))
      await postmark.close()
      await paddle.close()
    }
  }, 120_000)
})
