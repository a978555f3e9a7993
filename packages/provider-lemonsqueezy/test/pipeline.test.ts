import { OrderStore } from "@hookgate/core"
import { MailerSteps, ScriptedMailer } from "@hookgate/testing"
import { describeEachHmac } from "@hookgate/testing/conformance"
import { expect } from "@effect/vitest"
import { Duration, Effect, TestClock } from "effect"
import { lemonSqueezyEvent, orderEvent, signLemonSqueezyRequest } from "../src/testing.js"
import { makeProvider, pipeline, receiveLemon, SECRET } from "./support.js"

const mailer = Effect.flatMap(ScriptedMailer, (m) => Effect.all({ calls: m.calls, delivered: m.delivered }))
const receipts = Effect.flatMap(OrderStore, (store) => store.receipts({ limit: 20 }))
const orderOf = (key: string) => Effect.flatMap(OrderStore, (store) => Effect.flatMap(store.get(key), Effect.orDie))

/** Lemon Squeezy's documented retries after an answer other than 200: 5 s, 25 s and 125 s (as offsets from the first try). */
const RETRY_OFFSETS = ["5 seconds", "30 seconds", "155 seconds"] as const

const redeliverOnSchedule = (deliver: Effect.Effect<string, unknown, any>) =>
  Effect.gen(function*() {
    const start = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
    const answers: Array<string> = []
    for (const offset of RETRY_OFFSETS) {
      yield* TestClock.setTime(start + Duration.toMillis(offset))
      answers.push(yield* deliver)
    }
    return answers
  })

// The mailer does not honour idempotency keys here, so every call would be a second email.
const noKeys = { honoursIdempotencyKeys: false }

describeEachHmac("lemon squeezy: through the core pipeline", (it) => {
  it.effect("a paid order_created sends one email; the same request on Lemon Squeezy's retry schedule sends nothing more", () =>
    Effect.gen(function*() {
      const request = yield* signLemonSqueezyRequest(SECRET, orderEvent({ orderId: "1001", email: "ada@example.com" }))
      const deliver = Effect.map(receiveLemon(request), (outcome) => outcome._tag)
      expect(yield* deliver).toBe("Sent")
      expect(yield* redeliverOnSchedule(deliver)).toEqual(["Duplicate", "Duplicate", "Duplicate"])
      const { calls, delivered } = yield* mailer
      expect(calls).toHaveLength(1)
      expect(delivered.map((d) => d.email.to)).toEqual(["ada@example.com"])
      expect((yield* receipts).map((r) => [r.eventId, r.outcome, r.deliveries])).toEqual([["order_created:orders:1001", "duplicate", 3]])
      expect((yield* orderOf("lemonsqueezy:1001")).duplicatesPrevented).toBe(3)
    }).pipe(Effect.provide(pipeline(makeProvider(), { mailer: noKeys }))))

  it.effect("when the first answer is a 500, the first retry due after the backoff sends, and the others are duplicates or not yet due", () =>
    Effect.gen(function*() {
      const request = yield* signLemonSqueezyRequest(SECRET, orderEvent({ orderId: "1002" }))
      const deliver = Effect.map(receiveLemon(request), (outcome) => outcome._tag)
      const start = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
      expect(yield* deliver).toBe("Retry")
      const { nextAttemptAt } = yield* orderOf("lemonsqueezy:1002")
      const due = RETRY_OFFSETS.map((offset) => start + Duration.toMillis(offset) >= nextAttemptAt)
      const expected = due.map((isDue, i) => !isDue ? "Retry" : due.indexOf(true) === i ? "Sent" : "Duplicate")
      expect(yield* redeliverOnSchedule(deliver)).toEqual(expected)
      expect((yield* mailer).delivered).toHaveLength(expected.includes("Sent") ? 1 : 0)
    }).pipe(
      Effect.provide(
        pipeline(makeProvider(), {
          mailer: { ...noKeys, script: [MailerSteps.transient(), MailerSteps.transient(), MailerSteps.transient()] }
        })
      )
    ))

  it.effect("a captured request replayed a month later still verifies (no timestamp is signed) and sends nothing", () =>
    Effect.gen(function*() {
      const request = yield* signLemonSqueezyRequest(SECRET, orderEvent({ orderId: "1003" }))
      expect((yield* receiveLemon(request))._tag).toBe("Sent")
      yield* TestClock.adjust("30 days")
      expect((yield* receiveLemon(request))._tag).toBe("Duplicate")
      expect((yield* mailer).calls).toHaveLength(1)
    }).pipe(Effect.provide(pipeline(makeProvider(), { mailer: noKeys }))))

  it.effect("an unpaid order, its refund and other events answer ignored, keep receipts and send nothing", () =>
    Effect.gen(function*() {
      const bodies = [
        orderEvent({ orderId: "1004", status: "pending" }),
        orderEvent({ orderId: "1004", status: "refunded" }, "order_refunded"),
        lemonSqueezyEvent("subscription_payment_success", "subscription-invoices", "88"),
        lemonSqueezyEvent("brand_new_event", "things", "1")
      ]
      for (const body of bodies) expect((yield* receiveLemon(yield* signLemonSqueezyRequest(SECRET, body)))._tag).toBe("Ignored")
      expect((yield* receipts).map((r) => r.outcome)).toEqual(["ignored", "ignored", "ignored", "ignored"])
      expect((yield* Effect.flatMap(OrderStore, (s) => s.stats)).orders.pending).toBe(0)
      expect((yield* mailer).calls).toHaveLength(0)
    }).pipe(Effect.provide(pipeline(makeProvider()))))
})
