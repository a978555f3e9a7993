import { FetchHttpClient } from "@effect/platform"
import { OrderStore, receive, Renderer, RetryPolicy, sweep } from "@hookgate/core"
import { AlertStore } from "@hookgate/core/alerts"
import { OutgoingEmail } from "@hookgate/core/mail"
import { Providers } from "@hookgate/core/providers"
import { MemoryStore, paidEvent, RecordingAlerter, signTestRequest, TestProvider, TestRenderer } from "@hookgate/testing"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@effect/vitest"
import { Clock, Duration, Effect, Layer, Redacted } from "effect"
import { layer as resendLayer } from "../src/Resend.js"
import { type ResendTestServerShape, startResendTestServer } from "../src/testing/index.js"

const SECRET = Redacted.make("whsec_resend_pipeline")

let server: ResendTestServerShape
let limited: ResendTestServerShape
beforeAll(async () => {
  server = await startResendTestServer()
  limited = await startResendTestServer({ rateLimit: { requests: 4, windowMillis: 1000 } })
})
afterAll(async () => {
  await server.close()
  await limited.close()
})
beforeEach(() => {
  server.reset()
  limited.reset()
})

/** The pipeline on the in-memory store, sending through Resend's test server over real HTTP. */
const environment = (target: ResendTestServerShape, renderer = TestRenderer.layer) =>
  Layer.mergeAll(
    MemoryStore.layer,
    resendLayer(target.mailerOptions).pipe(Layer.provide(FetchHttpClient.layer)),
    RecordingAlerter.layer(),
    Providers.layer(TestProvider.make({ secret: SECRET })),
    renderer,
    // Real time throughout (the server's rate window is real): short durable backoff so the sweep is due soon.
    RetryPolicy.layer({ inRequestBase: 0, backoffBase: "50 millis" })
  )

const webhook = (orderId: string) =>
  Effect.flatMap(
    signTestRequest(
      SECRET,
      paidEvent(`evt_${orderId}`, { orderId, email: `${orderId}@example.com`, product: "course-101", amount: 1900, currency: "usd" })
    ),
    (request) => receive("test", request)
  )

const order = (id: string) =>
  Effect.flatMap(OrderStore, (store) => Effect.flatMap(store.get(`test:${id}`), (o) => Effect.orDie(o)))

const untilDue = (at: number) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sleep(Duration.millis(Math.max(0, at - now) + 5)))

describe("the pipeline through Resend's test server", () => {
  it.live("accepted but the connection dropped: the sweep retries with the same key and the server counts one email", () =>
    Effect.gen(function*() {
      server.acceptThenDrop()
      expect((yield* webhook("o1"))._tag).toBe("Retry")
      const uncertain = yield* order("o1")
      expect(uncertain).toMatchObject({ status: "pending", attempts: 1, uncertain: true })
      expect(server.emails).toHaveLength(1)

      yield* untilDue(uncertain.nextAttemptAt)
      expect(yield* sweep()).toMatchObject({ scanned: 1, sent: 1 })
      expect(server.emails).toHaveLength(1)
      expect(server.requests.map((r) => [r.idempotencyKey, r.status, r.replayed])).toEqual([
        ["hookgate/order/test:o1", "dropped", false],
        ["hookgate/order/test:o1", 200, true]
      ])
      const sent = yield* order("o1")
      expect(sent).toMatchObject({ status: "sent", messageId: server.emails[0]!.id })
    }).pipe(Effect.provide(environment(server))))

  it.live("a burst over the rate limit is delivered in full, each retry waiting out retry-after", () =>
    Effect.gen(function*() {
      const ids = Array.from({ length: 10 }, (_, i) => `burst${i}`)
      const outcomes = yield* Effect.forEach(ids, webhook, { concurrency: "unbounded" })
      expect(outcomes.map((o) => o._tag)).toEqual(ids.map(() => "Sent"))
      expect(new Set(limited.emails.map((e) => e.to[0]))).toEqual(new Set(ids.map((id) => `${id}@example.com`)))
      expect(limited.emails).toHaveLength(10)

      const requests = limited.requests
      expect(requests.filter((r) => r.status === 429).length).toBeGreaterThan(0)
      // Every retry of a key came at least retry-after (1 s) after the 429 it answers.
      for (const id of ids) {
        const mine = requests.filter((r) => r.idempotencyKey === `hookgate/order/test:${id}`)
        for (let i = 1; i < mine.length; i++) {
          expect(mine[i - 1]!.status).toBe(429)
          expect(mine[i]!.receivedAt - mine[i - 1]!.receivedAt).toBeGreaterThanOrEqual(990)
        }
      }
    }).pipe(Effect.provide(environment(limited))))

  it.live("HOOKGATE_FROM changed between attempts: the 409 for the changed payload records the order sent, never failed", () => {
    let from = "Shop <orders@shop.example>"
    return Effect.gen(function*() {
      server.acceptThenDrop()
      expect((yield* webhook("o5"))._tag).toBe("Retry")
      const uncertain = yield* order("o5")
      expect(uncertain).toMatchObject({ status: "pending", uncertain: true })
      expect(server.emails).toHaveLength(1)

      // The operator changes the sender before the retry: same key, another payload.
      from = "Shop <hello@shop.example>"
      yield* untilDue(uncertain.nextAttemptAt)
      expect(yield* sweep()).toMatchObject({ scanned: 1, sent: 1, failed: 0 })
      expect(server.requests.map((r) => [r.idempotencyKey, r.status])).toEqual([
        ["hookgate/order/test:o5", "dropped"],
        ["hookgate/order/test:o5", 409]
      ])
      expect(yield* order("o5")).toMatchObject({ status: "sent", uncertain: true })
      expect(server.emails).toHaveLength(1)
      const attempted = yield* Effect.flatMap(RecordingAlerter, (a) => a.attempts)
      expect(attempted.filter((a) => a.kind === "failed")).toEqual([])
    }).pipe(
      Effect.provide(
        environment(
          server,
          Renderer.fromFunction((o) => new OutgoingEmail({ from, to: o.fulfilment.email, subject: "Order", text: "Thanks" }))
        )
      )
    )
  })

  it.live("an invalid sender address is Rejected: the order fails once and the operator hears of it", () =>
    Effect.gen(function*() {
      const outcome = yield* webhook("o2")
      expect(outcome._tag).toBe("Failed")
      expect(yield* order("o2")).toMatchObject({ status: "failed", attempts: 1 })
      expect((yield* order("o2")).lastError).toContain("invalid_from_address")
      expect(server.requests).toHaveLength(1)
      expect(server.emails).toHaveLength(0)

      const attempted = yield* Effect.flatMap(RecordingAlerter, (a) => a.attempts)
      expect(attempted.map((a) => [a.kind, a.orderKey])).toEqual([["failed", "test:o2"]])
      expect(attempted[0]!.message).toContain("Invalid `from` field")
      const stored = yield* Effect.flatMap(AlertStore, (s) => s.list({ limit: 10 }))
      expect(stored.map((a) => [a.kind, a.deliveredAt !== null])).toEqual([["failed", true]])
    }).pipe(
      Effect.provide(
        environment(
          server,
          Renderer.fromFunction((o) =>
            new OutgoingEmail({ from: "shop-at-example.com", to: o.fulfilment.email, subject: "Order", text: "Thanks" })
          )
        )
      )
    ))

  it.live("a daily quota waits an hour in the durable backoff and raises one mailer_quota alert", () =>
    Effect.gen(function*() {
      server.failNext(1, { status: 429, name: "daily_quota_exceeded", message: "You have reached your daily email quota." })
      const before = yield* Clock.currentTimeMillis
      const outcome = yield* webhook("o3")
      expect(outcome._tag).toBe("Retry")
      expect(server.requests).toHaveLength(1) // not waited out in-request
      expect((yield* order("o3")).nextAttemptAt).toBeGreaterThanOrEqual(before + Duration.toMillis("1 hour"))
      const stored = yield* Effect.flatMap(AlertStore, (s) => s.list({ limit: 10 }))
      expect(stored.map((a) => a.kind)).toEqual(["mailer_quota"])
      expect(stored[0]!.message).toContain("daily_quota_exceeded")
    }).pipe(Effect.provide(environment(server))))
})
