import { OrderStore } from "@hookgate/core"
import { AlertStore } from "@hookgate/core/alerts"
import { ScriptedMailer } from "@hookgate/testing"
import { describeEachHmac } from "@hookgate/testing/conformance"
import { expect } from "@effect/vitest"
import { Effect, Redacted, TestClock } from "effect"
import { CUSTOMER_ID_KEY } from "../src/Paddle.js"
import { paddleEvent, signPaddleRequest, transactionEvent } from "../src/testing/index.js"
import { atNow, customerFor, failureOf, fetchesOf, makeProvider, pipeline, receivePaddle, SECRET, server } from "./support.js"

const mailer = Effect.flatMap(ScriptedMailer, (m) => Effect.all({ calls: m.calls, delivered: m.delivered }))
const receipts = Effect.flatMap(OrderStore, (store) => store.receipts({ limit: 20 }))
const orderOf = (key: string) => Effect.flatMap(OrderStore, (store) => Effect.flatMap(store.get(key), Effect.orDie))
const stats = Effect.flatMap(OrderStore, (store) => store.stats)
/** Signs at the clock's now, as Paddle signs each delivery. */
const deliver = (body: string) => Effect.flatMap(signPaddleRequest(SECRET, body), receivePaddle)
const noKeys = { mailer: { honoursIdempotencyKeys: false } }

describeEachHmac("paddle: through the core pipeline", (it) => {
  it.effect("transaction.paid then transaction.completed: the customer is fetched once, one email, and no replay fetches again", () =>
    Effect.gen(function*() {
      yield* atNow
      const customerId = server.addCustomer({ email: "paid-then-completed@example.com" })
      const paid = transactionEvent("evt_paid", "transaction.paid", { id: "txn_once", customerId, customData: { course: "effect-101", seats: 2 } })
      const completed = transactionEvent("evt_completed", "transaction.completed", { id: "txn_once", customerId, customData: { course: "effect-101", seats: 2 } })
      expect(yield* deliver(paid)).toMatchObject({ _tag: "Sent", orderKey: "paddle:txn_once" })
      expect(fetchesOf(customerId)).toBe(1)
      // The email is stored with the order, beside the customer id it was fetched for.
      expect((yield* orderOf("paddle:txn_once")).fulfilment).toMatchObject({
        email: "paid-then-completed@example.com",
        amount: 2900,
        currency: "USD",
        product: "pro_01h8bkrfe7w1vwf8xmytwn51eb",
        metadata: { course: "effect-101", seats: "2", [CUSTOMER_ID_KEY]: customerId }
      })
      yield* TestClock.adjust("3 seconds")
      expect((yield* deliver(completed))._tag).toBe("Duplicate")
      // Paddle's retries of either event, re-signed at delivery time.
      for (const wait of ["1 minute", "10 minutes", "1 hour"] as const) {
        yield* TestClock.adjust(wait)
        expect((yield* deliver(paid))._tag).toBe("Duplicate")
        expect((yield* deliver(completed))._tag).toBe("Duplicate")
      }
      expect(fetchesOf(customerId)).toBe(1)
      const { calls, delivered } = yield* mailer
      expect(calls).toHaveLength(1)
      expect(delivered.map((d) => d.email.to)).toEqual(["paid-then-completed@example.com"])
      // An email changed in Paddle afterwards changes nothing stored: the replays are still duplicates.
      server.setEmail(customerId, "changed-later@example.com")
      expect((yield* deliver(completed))._tag).toBe("Duplicate")
      expect(fetchesOf(customerId)).toBe(1)
    }).pipe(Effect.provide(pipeline(makeProvider(), noKeys))))

  it.effect("a replay naming another customer is fetched for that customer, and refused as a conflict", () =>
    Effect.gen(function*() {
      yield* atNow
      const first = server.addCustomer({ email: "first-owner@example.com" })
      const other = server.addCustomer({ email: "someone-else@example.com" })
      expect((yield* deliver(transactionEvent("evt_a", "transaction.completed", { id: "txn_moved", customerId: first })))._tag).toBe("Sent")
      const conflict = yield* failureOf(deliver(transactionEvent("evt_b", "transaction.completed", { id: "txn_moved", customerId: other })))
      expect(conflict).toMatchObject({ _tag: "OrderConflict", orderKey: "paddle:txn_moved" })
      expect([fetchesOf(first), fetchesOf(other)]).toEqual([1, 1])
    }).pipe(Effect.provide(pipeline(makeProvider(), noKeys))))

  it.effect("429 and 503 answers are retried on the schedule: the third try's email is stored and sent", () =>
    Effect.gen(function*() {
      yield* atNow
      const customerId = customerFor("retried@example.com")
      const before = server.requests.length
      server.failNext(1, { status: 429, code: "too_many_requests", retryAfter: 1 })
      server.failNext(1, { status: 503, code: "internal_error" })
      expect((yield* deliver(transactionEvent("evt_r", "transaction.completed", { id: "txn_retried", customerId })))._tag).toBe("Sent")
      expect(server.requests.slice(before).map((r) => r.status)).toEqual([429, 503, 200])
      expect(server.requests.slice(before).every((r) => r.authorized)).toBe(true)
      expect((yield* orderOf("paddle:txn_retried")).fulfilment.email).toBe("retried@example.com")
    }).pipe(Effect.provide(pipeline(makeProvider(), noKeys))))

  it.effect("when Paddle stays unavailable past the retries: 500 unfulfillable, a receipt and an alert, no order; Paddle's next delivery sends", () =>
    Effect.gen(function*() {
      yield* atNow
      const customerId = customerFor("outage@example.com")
      const body = transactionEvent("evt_o", "transaction.completed", { id: "txn_outage", customerId })
      const before = server.requests.length
      server.failNext(4, { status: 500, code: "internal_error" })
      const error = yield* failureOf(deliver(body))
      expect(error).toMatchObject({
        _tag: "Unfulfillable",
        provider: "paddle",
        objectId: "txn_outage",
        detail: `customer ${customerId} could not be fetched: Paddle answered 500 internal_error`
      })
      expect(server.requests.length - before).toBe(4) // the first try and three retries
      expect((yield* stats).orders.pending).toBe(0)
      expect((yield* receipts).map((r) => [r.eventId, r.outcome])).toEqual([["evt_o", "unfulfillable"]])
      expect((yield* Effect.flatMap(AlertStore, (a) => a.list({ limit: 5 }))).map((a) => a.kind)).toEqual(["unfulfillable"])
      yield* TestClock.adjust("1 minute")
      expect((yield* deliver(body))._tag).toBe("Sent")
    }).pipe(Effect.provide(pipeline(makeProvider(), noKeys))))

  it.effect("a refused API key (403 invalid_token) is not retried, and its error names no key", () =>
    Effect.gen(function*() {
      yield* atNow
      const customerId = customerFor("bad-key@example.com")
      const before = server.requests.length
      const error = yield* failureOf(deliver(transactionEvent("evt_k", "transaction.completed", { id: "txn_key", customerId })))
      expect(error).toMatchObject({ _tag: "Unfulfillable", detail: `customer ${customerId} could not be fetched: Paddle answered 403 invalid_token` })
      expect(server.requests.length - before).toBe(1)
      expect(`${String(error)} ${JSON.stringify(error)}`).not.toContain("pdl_sdbx_apikey_revoked")
    }).pipe(Effect.provide(pipeline(makeProvider(undefined, { apiKey: Redacted.make("pdl_sdbx_apikey_revoked") }), noKeys))))

  it.effect("a transaction not yet paid, a failed payment and a refund answer ignored without a fetch", () =>
    Effect.gen(function*() {
      yield* atNow
      const customerId = server.addCustomer({ email: "not-paid@example.com" })
      const bodies = [
        transactionEvent("evt_1", "transaction.created", { id: "txn_np", customerId }),
        transactionEvent("evt_2", "transaction.payment_failed", { id: "txn_np", customerId, status: "past_due" }),
        transactionEvent("evt_3", "transaction.completed", { id: "txn_np", customerId, status: "canceled" }),
        paddleEvent("evt_4", "adjustment.created", { id: "adj_1", action: "refund", transaction_id: "txn_np" }),
        paddleEvent("evt_5", "subscription.created", { id: "sub_1" })
      ]
      for (const body of bodies) expect((yield* deliver(body))._tag).toBe("Ignored")
      expect((yield* receipts).map((r) => r.outcome)).toEqual(bodies.map(() => "ignored"))
      expect(fetchesOf(customerId)).toBe(0)
      expect((yield* mailer).calls).toHaveLength(0)
    }).pipe(Effect.provide(pipeline(makeProvider()))))
})
