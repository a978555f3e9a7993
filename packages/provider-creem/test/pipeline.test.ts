import { OrderStore } from "@hookgate/core"
import { MailerSteps, ScriptedMailer } from "@hookgate/testing"
import { describeEachHmac } from "@hookgate/testing/conformance"
import { expect } from "@effect/vitest"
import { Duration, Effect, TestClock } from "effect"
import { checkoutCompletedEvent, creemEvent, signCreemRequest } from "../src/testing.js"
import { makeProvider, pipeline, receiveCreem, SECRET } from "./support.js"

const mailer = Effect.flatMap(ScriptedMailer, (m) => Effect.all({ calls: m.calls, delivered: m.delivered }))
const receipts = Effect.flatMap(OrderStore, (store) => store.receipts({ limit: 20 }))
const orderOf = (key: string) => Effect.flatMap(OrderStore, (store) => Effect.flatMap(store.get(key), Effect.orDie))

/** Creem's documented retries after a non-200 answer, as offsets from the first delivery. */
const RETRY_OFFSETS = ["30 seconds", "1 minute", "5 minutes", "1 hour"] as const

/** Delivers `request` at each retry offset, on TestClock, and answers the outcomes in order. */
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

describeEachHmac("creem: through the core pipeline", (it) => {
  it.effect("the same signed request again at +30 s, +1 min, +5 min and +1 h sends one email", () =>
    Effect.gen(function*() {
      const request = yield* signCreemRequest(SECRET, checkoutCompletedEvent("evt_r", { orderId: "ord_r" }))
      const deliver = Effect.map(receiveCreem(request), (outcome) => outcome._tag)
      expect(yield* deliver).toBe("Sent")
      expect(yield* redeliverOnSchedule(deliver)).toEqual(["Duplicate", "Duplicate", "Duplicate", "Duplicate"])
      const { calls, delivered } = yield* mailer
      expect(calls).toHaveLength(1)
      expect(delivered).toHaveLength(1)
      // Every replay is visible: one receipt for the event, counted four times.
      expect((yield* receipts).map((r) => [r.eventId, r.outcome, r.deliveries])).toEqual([["evt_r", "duplicate", 4]])
      expect((yield* orderOf("creem:ord_r")).duplicatesPrevented).toBe(4)
    }).pipe(Effect.provide(pipeline(makeProvider(), { mailer: noKeys }))))

  it.effect("when the first answer is a 500, Creem's retries wait for the backoff: the first due one sends, later ones are duplicates", () =>
    Effect.gen(function*() {
      const request = yield* signCreemRequest(SECRET, checkoutCompletedEvent("evt_f", { orderId: "ord_f" }))
      const deliver = Effect.map(receiveCreem(request), (outcome) => outcome._tag)
      const start = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
      expect(yield* deliver).toBe("Retry")
      const { nextAttemptAt } = yield* orderOf("creem:ord_f")
      // A retry before the backoff allows neither sends nor counts; the first one after it sends.
      const due = RETRY_OFFSETS.map((offset) => start + Duration.toMillis(offset) >= nextAttemptAt)
      const expected = due.map((isDue, i) => !isDue ? "Retry" : due.indexOf(true) === i ? "Sent" : "Duplicate")
      expect(expected).toContain("Sent")
      expect(yield* redeliverOnSchedule(deliver)).toEqual(expected)
      const { calls, delivered } = yield* mailer
      expect(calls).toHaveLength(4) // three failed tries in the first request, one success
      expect(delivered).toHaveLength(1)
      expect(yield* orderOf("creem:ord_f")).toMatchObject({ status: "sent", attempts: 1 })
    }).pipe(
      Effect.provide(
        pipeline(makeProvider(), {
          mailer: { ...noKeys, script: [MailerSteps.transient(), MailerSteps.transient(), MailerSteps.transient()] }
        })
      )
    ))

  it.effect("a captured request replayed a month later is still verified, and still sends nothing", () =>
    Effect.gen(function*() {
      const request = yield* signCreemRequest(SECRET, checkoutCompletedEvent("evt_old", { orderId: "ord_old" }))
      expect((yield* receiveCreem(request))._tag).toBe("Sent")
      yield* TestClock.adjust("30 days")
      expect((yield* receiveCreem(request))._tag).toBe("Duplicate")
      expect((yield* mailer).calls).toHaveLength(1)
    }).pipe(Effect.provide(pipeline(makeProvider(), { mailer: noKeys }))))

  it.effect("other event types answer ignored and leave receipts", () =>
    Effect.gen(function*() {
      for (const [id, type] of [["evt_1", "refund.created"], ["evt_2", "subscription.paid"], ["evt_3", "brand.new.type"]]) {
        const outcome = yield* receiveCreem(yield* signCreemRequest(SECRET, creemEvent(id!, type!, { id: "x" })))
        expect(outcome).toMatchObject({ _tag: "Ignored", eventType: type })
      }
      expect((yield* receipts).map((r) => r.outcome)).toEqual(["ignored", "ignored", "ignored"])
      expect((yield* mailer).calls).toHaveLength(0)
    }).pipe(Effect.provide(pipeline(makeProvider()))))
})
