import { OrderStore } from "@hookgate/core"
import { ScriptedMailer } from "@hookgate/testing"
import { describeEachHmac } from "@hookgate/testing/conformance"
import { expect } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { checkoutSessionEvent, signStripeRequest } from "../src/testing.js"
import { atNow, makeProvider, pipeline, receiveStripe, SECRET } from "./support.js"

const deliver = (body: string) => Effect.flatMap(signStripeRequest(SECRET, body), receiveStripe)
const mailer = Effect.flatMap(ScriptedMailer, (m) => Effect.all({ calls: m.calls, delivered: m.delivered }))
const receiptsOf = (orderKey?: string) =>
  Effect.flatMap(OrderStore, (store) => store.receipts({ orderKey, limit: 20 }))

// The mailer does not honour idempotency keys here, so every call would be a second email.
const env = pipeline(makeProvider(), { mailer: { honoursIdempotencyKeys: false } })

describeEachHmac("stripe: through the core pipeline", (it) => {
  it.effect("completed (unpaid) then async_payment_succeeded for one session sends one email", () =>
    Effect.gen(function*() {
      yield* atNow
      const completed = yield* deliver(
        checkoutSessionEvent("evt_c", "checkout.session.completed", { id: "cs_delayed", paymentStatus: "unpaid" })
      )
      expect(completed).toMatchObject({ _tag: "Ignored", eventType: "checkout.session.completed" })
      expect((yield* mailer).calls).toHaveLength(0)
      // The unpaid completion is recorded, not dropped.
      expect((yield* receiptsOf()).map((r) => [r.eventId, r.outcome])).toEqual([["evt_c", "ignored"]])

      // Days later, the bank transfer clears.
      yield* TestClock.adjust("2 days")
      const succeeded = yield* deliver(checkoutSessionEvent("evt_s", "checkout.session.async_payment_succeeded", { id: "cs_delayed" }))
      expect(succeeded).toMatchObject({ _tag: "Sent", orderKey: "stripe:cs_delayed" })
      // Stripe retries the success: a duplicate, no second call.
      expect((yield* deliver(checkoutSessionEvent("evt_s", "checkout.session.async_payment_succeeded", { id: "cs_delayed" })))._tag)
        .toBe("Duplicate")
      const { calls, delivered } = yield* mailer
      expect(calls).toHaveLength(1)
      expect(delivered.map((d) => d.email.to)).toEqual(["buyer@example.com"])
    }).pipe(Effect.provide(env)))

  it.effect("completed (paid) then async_payment_succeeded for one session sends one email", () =>
    Effect.gen(function*() {
      yield* atNow
      const session = { id: "cs_both", email: "both@example.com", metadata: { product_id: "ebook" } }
      expect(yield* deliver(checkoutSessionEvent("evt_1", "checkout.session.completed", session))).toMatchObject({
        _tag: "Sent",
        orderKey: "stripe:cs_both"
      })
      yield* TestClock.adjust("1 minute")
      expect((yield* deliver(checkoutSessionEvent("evt_2", "checkout.session.async_payment_succeeded", session)))._tag).toBe(
        "Duplicate"
      )
      expect((yield* mailer).calls).toHaveLength(1)
      const order = yield* Effect.flatMap(OrderStore, (store) => Effect.flatMap(store.get("stripe:cs_both"), Effect.orDie))
      expect(order).toMatchObject({ status: "sent", eventId: "evt_1", duplicatesPrevented: 1 })
      expect(order.fulfilment.product).toBe("ebook")
      expect((yield* receiptsOf("stripe:cs_both")).map((r) => [r.eventId, r.outcome])).toEqual([["evt_2", "duplicate"]])
    }).pipe(Effect.provide(env)))

  it.effect("an event type hookgate does not fulfil answers ignored and leaves a receipt", () =>
    Effect.gen(function*() {
      yield* atNow
      const refund = JSON.stringify({ id: "evt_r", object: "event", type: "charge.refunded", data: { object: { id: "ch_1" } } })
      expect(yield* deliver(refund)).toMatchObject({ _tag: "Ignored", eventType: "charge.refunded" })
      expect((yield* receiptsOf()).map((r) => [r.eventId, r.eventType, r.outcome])).toEqual([
        ["evt_r", "charge.refunded", "ignored"]
      ])
      expect((yield* mailer).calls).toHaveLength(0)
    }).pipe(Effect.provide(env)))
})
