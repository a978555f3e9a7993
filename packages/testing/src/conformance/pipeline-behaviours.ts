import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as TestClock from "effect/TestClock"
import { deliver, fulfilmentHash, lastRuns, NewOrder, OrderStore, receive, sweep } from "@hookgate/core"
import type { Lease, RetryPolicyOptions } from "@hookgate/core"
import { AlertStore } from "@hookgate/core/alerts"
import { WebhookRequest } from "@hookgate/core/providers"
import { withStoreFaults, type StoreFaults } from "../faults.js"
import { RecordingAlerter } from "../recording-alerter.js"
import { ScriptedMailer, type ScriptedMailerOptions } from "../scripted-mailer.js"
import { paidEvent, signTestRequest } from "../test-provider.js"
import { eventually, TEST_SECRET } from "../fixtures.js"
import * as TestProvider from "../TestProvider.js"
import * as TestPipeline from "../TestPipeline.js"
import * as MailerSteps from "../MailerSteps.js"

type StoreLayer = Layer.Layer<OrderStore | Lease | AlertStore, unknown>

export interface Scenario {
  readonly mailer?: ScriptedMailerOptions
  readonly alerterFails?: boolean
  readonly policy?: RetryPolicyOptions
  readonly faults?: StoreFaults
}

/**
 * The pipeline's guarantees, shown through `receive`, `deliver` and `sweep`
 * on any store. Each test builds a fresh store from `makeLayer`; time is TestClock.
 */
export const pipelineBehaviours = (name: string, makeLayer: () => StoreLayer) =>
  describe(`pipeline behaviours: ${name}`, () => {
    const environment = (scenario: Scenario) =>
      TestPipeline.layer({
        store: scenario.faults ? withStoreFaults(makeLayer(), scenario.faults) : makeLayer(),
        providers: [TestProvider.make({ secret: TEST_SECRET })],
        ...(scenario.mailer ? { mailer: scenario.mailer } : {}),
        alerterFails: scenario.alerterFails ?? false,
        ...(scenario.policy ? { policy: scenario.policy } : {})
      })
    type Env = Layer.Layer.Success<ReturnType<typeof environment>>
    const scenario = (title: string, setup: Scenario, body: Effect.Effect<void, unknown, Env>) =>
      it.effect(title, () => Effect.provide(body, environment(setup)))

    const webhook = (orderId: string, options: { eventId?: string; email?: string } = {}) =>
      Effect.flatMap(
        signTestRequest(
          TEST_SECRET,
          paidEvent(options.eventId ?? `evt_${orderId}`, {
            orderId,
            email: options.email ?? `${orderId}@example.com`,
            product: "course-101",
            amount: 1900,
            currency: "usd"
          })
        ),
        (request) => receive("test", request)
      )
    const order = (id: string) =>
      Effect.flatMap(OrderStore, (store) => Effect.flatMap(store.get(`test:${id}`), (o) => Effect.orDie(o)))
    const delivered = Effect.flatMap(ScriptedMailer, (m) => m.delivered)
    const calls = Effect.flatMap(ScriptedMailer, (m) => m.calls)
    const runSweep = sweep()

    for (const count of [2, 50]) {
      scenario(
        `${count} simultaneous identical webhooks send one email`,
        { mailer: { script: [MailerSteps.slow("1 second")] } },
        Effect.gen(function*() {
          const answers = yield* Queue.unbounded<string>()
          yield* Effect.forEach(
            Array.from({ length: count }),
            () => Effect.fork(Effect.flatMap(webhook("o1"), (outcome) => answers.offer(outcome._tag))),
            { discard: true }
          )
          // Every sender but the lease holder answers while the holder is still sending.
          const early = yield* Effect.forEach(Array.from({ length: count - 1 }), () => answers.take)
          expect(early).toEqual(Array.from({ length: count - 1 }, () => "InProgress"))
          // The holder's send has begun (its slow step now waits on the clock) before time moves.
          yield* eventually(calls, (list) => list.length === 1)
          yield* TestClock.adjust("1 second")
          expect(yield* answers.take).toBe("Sent")
          expect(yield* delivered).toHaveLength(1)
          expect((yield* order("o1")).status).toBe("sent")
          expect((yield* order("o1")).duplicatesPrevented).toBe(count - 1)
        })
      )
    }

    scenario(
      "a replay after the send answers duplicate and sends nothing",
      {},
      Effect.gen(function*() {
        expect((yield* webhook("o1"))._tag).toBe("Sent")
        expect((yield* webhook("o1"))._tag).toBe("Duplicate")
        expect((yield* webhook("o1", { eventId: "evt_other" }))._tag).toBe("Duplicate")
        expect(yield* delivered).toHaveLength(1)
        const store = yield* OrderStore
        expect((yield* store.stats).duplicatesPrevented).toBe(2)
      })
    )

    scenario(
      "a fresh lease blocks the sweep",
      { mailer: { script: [MailerSteps.slow("1 minute")] } },
      Effect.gen(function*() {
        const sender = yield* Effect.fork(webhook("o1"))
        yield* eventually(calls, (list) => list.length === 1)
        yield* TestClock.adjust("30 seconds")
        const report = yield* runSweep
        expect(report.scanned).toBe(0)
        expect(yield* calls).toHaveLength(1)
        yield* TestClock.adjust("30 seconds")
        expect((yield* Fiber.join(sender))._tag).toBe("Sent")
        expect(yield* delivered).toHaveLength(1)
      })
    )

    scenario(
      "an expired lease of a crashed sender is taken over by the sweep",
      {},
      Effect.gen(function*() {
        // A sender stored and leased the order, then died before sending.
        const store = yield* OrderStore
        const provider = yield* TestProvider.make({ secret: TEST_SECRET })
        const request = yield* signTestRequest(
          TEST_SECRET,
          paidEvent("evt_o1", { orderId: "o1", email: "o1@example.com", amount: 100, currency: "usd" })
        )
        const event = yield* provider.verify(request)
        const fulfilment = Option.getOrThrow(yield* provider.fulfilment(event))
        yield* store.put(
          new NewOrder({ provider: "test", eventId: event.id, eventType: event.type, fulfilment, payloadHash: yield* fulfilmentHash(fulfilment) }),
          { token: crypto.randomUUID(), now: 0, until: 300_000 }
        )
        yield* TestClock.adjust("4 minutes")
        expect((yield* runSweep).scanned).toBe(0)
        yield* TestClock.adjust("1 minute")
        const report = yield* runSweep
        expect(report).toMatchObject({ scanned: 1, sent: 1 })
        expect(yield* delivered).toHaveLength(1)
        const sent = yield* order("o1")
        expect(sent.status).toBe("sent")
        expect(sent.uncertain).toBe(true)
      })
    )

    scenario(
      "one sweep drains a backlog larger than a page; each order gets one attempt",
      {},
      Effect.gen(function*() {
        // 120 senders stored and leased their orders, then died (an outage, a crash).
        const store = yield* OrderStore
        const provider = yield* TestProvider.make({ secret: TEST_SECRET })
        yield* Effect.forEach(Array.from({ length: 120 }, (_, i) => `b${i}`), (id) =>
          Effect.gen(function*() {
            const request = yield* signTestRequest(
              TEST_SECRET,
              paidEvent(`evt_${id}`, { orderId: id, email: `${id}@example.com`, amount: 100, currency: "usd" })
            )
            const event = yield* provider.verify(request)
            const fulfilment = Option.getOrThrow(yield* provider.fulfilment(event))
            yield* store.put(
              new NewOrder({ provider: "test", eventId: event.id, eventType: event.type, fulfilment, payloadHash: yield* fulfilmentHash(fulfilment) }),
              { token: crypto.randomUUID(), now: 0, until: 300_000 }
            )
          }), { discard: true })
        yield* TestClock.adjust("5 minutes")
        expect(yield* sweep({ limit: 50 })).toMatchObject({ scanned: 120, sent: 120, skipped: 0 })
        expect(yield* delivered).toHaveLength(120)
        expect((yield* runSweep).scanned).toBe(0)
      })
    )

    scenario(
      "a late finisher with a stale token cannot mark the order and is counted as a lost lease",
      {
        mailer: { script: [MailerSteps.slow("2 minutes"), MailerSteps.succeed] },
        policy: { leaseFor: "1 minute", sendTimeout: "10 minutes" }
      },
      Effect.gen(function*() {
        const slow = yield* Effect.fork(webhook("o1"))
        yield* eventually(calls, (list) => list.length === 1)
        yield* TestClock.adjust("61 seconds")
        expect((yield* runSweep).sent).toBe(1)
        const taken = yield* order("o1")
        expect(taken.status).toBe("sent")
        yield* TestClock.adjust("2 minutes")
        expect((yield* Fiber.join(slow))._tag).toBe("Sent")
        const after = yield* order("o1")
        expect(after.messageId).toBe(taken.messageId)
        expect(after.sentAt).toBe(taken.sentAt)
        expect(after.leasesLost).toBe(1)
        // Both calls carried one key; the mailer honours it, so one email arrived.
        const keys = (yield* calls).map((c) => c.idempotencyKey)
        expect(keys).toEqual(["hookgate/order/test:o1", "hookgate/order/test:o1"])
        expect(yield* delivered).toHaveLength(1)
        const store = yield* OrderStore
        expect((yield* store.stats).leasesLost).toBe(1)
        // The history: the sweep's attempt sent, then the late finisher's kept as lease_lost.
        const history = yield* store.attempts("test:o1", { limit: 10 })
        expect(history.map((a) => [a.number, a.outcome, a.errorClass])).toEqual([[1, "lease_lost", null], [1, "sent", null]])
        expect(history[0]!.startedAt).toBe(0)
        expect(history[0]!.detail).toMatch(/^the mailer accepted it: /)
        expect(history[1]!.detail).toBe(taken.messageId)
      })
    )

    scenario(
      "each attempt is kept in the order's history with its outcome and error class, in the step that records it",
      { mailer: { script: [MailerSteps.transient(), MailerSteps.transient(), MailerSteps.transient()] }, policy: { maxAttempts: 2 } },
      Effect.gen(function*() {
        const store = yield* OrderStore
        expect(yield* store.attempts("test:o1", { limit: 10 })).toEqual([])
        expect((yield* webhook("o1"))._tag).toBe("Retry")
        const first = yield* order("o1")
        yield* TestClock.setTime(first.nextAttemptAt)
        // The second attempt fails too (a rejection), which fails the order with its alert.
        yield* Effect.flatMap(ScriptedMailer, (m) => m.push(MailerSteps.rejected("mailbox <b>unavailable</b>")))
        expect(yield* runSweep).toMatchObject({ scanned: 1, failed: 1 })
        const failed = yield* order("o1")
        expect(failed.status).toBe("failed")
        const history = yield* store.attempts("test:o1", { limit: 10 })
        expect(history.map((a) => [a.number, a.outcome, a.errorClass])).toEqual([[2, "failed", "Rejected"], [1, "retry", "Transient"]])
        expect(history[0]).toMatchObject({ orderKey: "test:o1", startedAt: first.nextAttemptAt, recordedAt: failed.updatedAt })
        expect(history[0]!.detail).toContain("mailbox <b>unavailable</b>")
        expect(history[1]).toMatchObject({ startedAt: 0, recordedAt: 0, detail: first.lastError })
        expect(yield* store.attempts("test:o1", { limit: 1 })).toHaveLength(1)
        // Requeued by an operator and sent: a third row, the first two kept.
        yield* TestClock.adjust("1 minute")
        yield* store.requeue("test:o1", first.nextAttemptAt + 60_000)
        expect((yield* deliver("test:o1", { dueOnly: false }))._tag).toBe("Sent")
        expect((yield* store.attempts("test:o1", { limit: 10 })).map((a) => [a.number, a.outcome])).toEqual([
          [1, "sent"],
          [2, "failed"],
          [1, "retry"]
        ])
      })
    )

    scenario(
      "a sweep is kept as the last sweep, with its report",
      { mailer: { script: [MailerSteps.transient(), MailerSteps.transient(), MailerSteps.transient()] } },
      Effect.gen(function*() {
        expect(yield* lastRuns).toEqual({ sweep: null, reconcile: null })
        expect((yield* webhook("o1"))._tag).toBe("Retry")
        yield* TestClock.setTime((yield* order("o1")).nextAttemptAt)
        const at = (yield* order("o1")).nextAttemptAt
        const report = yield* runSweep
        expect(report).toMatchObject({ scanned: 1, sent: 1 })
        const runs = yield* lastRuns
        expect(runs.sweep).toEqual({ startedAt: at, finishedAt: at, report })
        expect(runs.reconcile).toBeNull()
        yield* TestClock.adjust("10 minutes")
        const empty = yield* runSweep
        expect((yield* lastRuns).sweep).toEqual({ startedAt: at + 600_000, finishedAt: at + 600_000, report: empty })
      })
    )

    scenario(
      "a failed send answers retry, is recorded, and the sweep retries it when due, not before",
      { mailer: { script: [MailerSteps.transient(), MailerSteps.transient(), MailerSteps.transient()] } },
      Effect.gen(function*() {
        const outcome = yield* webhook("o1")
        expect(outcome._tag).toBe("Retry")
        expect(yield* calls).toHaveLength(3) // two in-request retries
        const failed = yield* order("o1")
        expect(failed).toMatchObject({ status: "pending", attempts: 1, leaseToken: null })
        expect(failed.lastError).toContain("transient")
        expect(failed.nextAttemptAt).toBeGreaterThan(0)
        expect((yield* runSweep).scanned).toBe(0)
        yield* TestClock.setTime(failed.nextAttemptAt - 1)
        expect((yield* runSweep).scanned).toBe(0)
        yield* TestClock.setTime(failed.nextAttemptAt)
        expect(yield* runSweep).toMatchObject({ scanned: 1, sent: 1, failed: 0 })
        expect((yield* order("o1")).status).toBe("sent")
        expect(yield* delivered).toHaveLength(1)
      })
    )

    scenario(
      "replays before the backoff allows neither send nor count an attempt; the first replay once due sends",
      { mailer: { script: [MailerSteps.transient(), MailerSteps.transient(), MailerSteps.transient()] } },
      Effect.gen(function*() {
        expect((yield* webhook("o1"))._tag).toBe("Retry")
        const failed = yield* order("o1")
        // A burst of copies (a provider's retries, or a captured request sent again).
        const burst = yield* Effect.forEach(Array.from({ length: 8 }, (_, i) => i), (i) =>
          webhook("o1", { eventId: i % 2 === 0 ? "evt_o1" : `evt_copy_${i}` }), { concurrency: 4 })
        expect(burst.map((outcome) => outcome._tag)).toEqual(Array.from({ length: 8 }, () => "Retry"))
        expect(burst.every((outcome) => outcome._tag === "Retry" && outcome.nextAttemptAt === failed.nextAttemptAt))
          .toBe(true)
        expect(yield* calls).toHaveLength(3)
        expect(yield* order("o1")).toMatchObject({ status: "pending", attempts: 1, nextAttemptAt: failed.nextAttemptAt })
        const receipts = yield* Effect.flatMap(OrderStore, (store) => store.receipts({ orderKey: "test:o1", limit: 20 }))
        expect(receipts.filter((receipt) => receipt.outcome === "not_due").length).toBeGreaterThan(0)
        yield* TestClock.setTime(failed.nextAttemptAt)
        expect((yield* webhook("o1"))._tag).toBe("Sent")
        expect(yield* delivered).toHaveLength(1)
      })
    )

    const capScenario =
      Effect.gen(function*() {
        expect((yield* webhook("o1"))._tag).toBe("Retry")
        for (let attempt = 2; attempt <= 8; attempt++) {
          yield* TestClock.setTime((yield* order("o1")).nextAttemptAt)
          const report = yield* runSweep
          expect(report.scanned).toBe(1)
          expect(report[attempt === 8 ? "capped" : "failed"]).toBe(1)
        }
        const capped = yield* order("o1")
        expect(capped).toMatchObject({ status: "capped", attempts: 8 })
        expect(yield* calls).toHaveLength(8 * 3)
        // Neither a webhook replay nor a later sweep sends again.
        expect((yield* webhook("o1"))._tag).toBe("Capped")
        yield* TestClock.adjust("30 days")
        expect((yield* runSweep).scanned).toBe(0)
        expect((yield* deliver("test:o1", { dueOnly: false }))._tag).toBe("Skipped")
        expect(yield* calls).toHaveLength(8 * 3)
        const attempted = yield* Effect.flatMap(RecordingAlerter, (a) => a.attempts)
        expect(new Set(attempted.map((a) => a.kind))).toEqual(new Set(["capped"]))
        const stored = yield* Effect.flatMap(AlertStore, (s) => s.list({ limit: 10 }))
        expect(stored).toHaveLength(1)
        expect(stored[0]!.kind).toBe("capped")
        return stored[0]!
      })

    scenario(
      "after 8 recorded failures nothing sends; one alert is stored and sent once",
      { mailer: { otherwise: MailerSteps.transient() } },
      Effect.gen(function*() {
        const alert = yield* capScenario
        expect(alert.deliveredAt).not.toBeNull()
        expect(alert.deliveryError).toBeNull()
        expect(alert).toMatchObject({ attempts: 1, nextAttemptAt: null })
        expect(yield* Effect.flatMap(RecordingAlerter, (a) => a.attempts)).toHaveLength(1)
      })
    )

    const storedAlert = Effect.map(Effect.flatMap(AlertStore, (s) => s.list({ limit: 10 })), (alerts) => alerts[0]!)
    const alerterCalls = Effect.map(Effect.flatMap(RecordingAlerter, (a) => a.attempts), (list) => list.length)

    scenario(
      "an alert whose delivery failed is kept and re-attempted by later sweeps with backoff; once the channel works it is delivered once",
      { mailer: { otherwise: MailerSteps.transient() }, alerterFails: true },
      Effect.gen(function*() {
        // The mailer was down when the order capped, and so was the alert channel:
        // attempted at the cap, then by the sweep 30 days later (it was due).
        const alert = yield* capScenario
        expect(alert).toMatchObject({ deliveredAt: null, deliveryError: "alert channel is down", attempts: 2 })
        expect(yield* alerterCalls).toBe(2)
        let previousGap = 0
        let last = alert
        for (const attempts of [3, 4]) {
          // Not before its backoff has passed...
          yield* TestClock.setTime(last.nextAttemptAt! - 1)
          expect(yield* runSweep).toMatchObject({ alertsAttempted: 0, alertsDelivered: 0 })
          // ...then once, recorded with a longer backoff each time.
          const at = last.nextAttemptAt!
          yield* TestClock.setTime(at)
          expect(yield* runSweep).toMatchObject({ alertsAttempted: 1, alertsDelivered: 0 })
          last = yield* storedAlert
          expect(last).toMatchObject({ attempts, deliveredAt: null, deliveryError: "alert channel is down" })
          const gap = last.nextAttemptAt! - at
          expect(gap).toBeGreaterThan(previousGap)
          previousGap = gap
        }
        expect(yield* alerterCalls).toBe(4)
        // The channel works again: the next due sweep delivers it, and no sweep after that attempts it.
        yield* Effect.flatMap(RecordingAlerter, (a) => a.setFailing(false))
        yield* TestClock.setTime(last.nextAttemptAt!)
        expect(yield* runSweep).toMatchObject({ alertsAttempted: 1, alertsDelivered: 1 })
        expect(yield* storedAlert).toMatchObject({ attempts: 5, deliveryError: null, nextAttemptAt: null })
        yield* TestClock.adjust("30 days")
        expect(yield* runSweep).toMatchObject({ alertsAttempted: 0 })
        expect(yield* alerterCalls).toBe(5)
      })
    )

    scenario(
      "an alert whose channel never works is attempted up to the cap, then left for the operator",
      { mailer: { otherwise: MailerSteps.transient() }, alerterFails: true, policy: { maxAttempts: 3 } },
      Effect.gen(function*() {
        expect((yield* webhook("o1"))._tag).toBe("Retry")
        for (let attempt = 2; attempt <= 3; attempt++) {
          yield* TestClock.setTime((yield* order("o1")).nextAttemptAt)
          yield* runSweep
        }
        expect(yield* order("o1")).toMatchObject({ status: "capped" })
        expect(yield* storedAlert).toMatchObject({ kind: "capped", attempts: 1 })
        for (let sweeps = 0; sweeps < 10; sweeps++) {
          yield* TestClock.adjust("1 day")
          yield* runSweep
        }
        // Three attempts (the cap), the last error kept, nothing scheduled: `hookgate alerts list` shows it.
        expect(yield* storedAlert).toMatchObject({ attempts: 3, deliveredAt: null, deliveryError: "alert channel is down", nextAttemptAt: null })
        expect(yield* alerterCalls).toBe(3)
      })
    )

    scenario(
      "an alert whose attempt could not be recorded (the store failed then) is attempted by a sweep a lease later, and delivered once",
      {
        mailer: { otherwise: MailerSteps.transient() },
        alerterFails: true,
        policy: { maxAttempts: 1 },
        faults: { failRecordAttempt: 1 }
      },
      Effect.gen(function*() {
        // The order caps at its first failure; its alert is stored with the release and
        // attempted, the channel fails, and recording that failure fails too.
        yield* webhook("o1")
        expect(yield* order("o1")).toMatchObject({ status: "capped" })
        expect(yield* storedAlert).toMatchObject({ kind: "capped", attempts: 0, deliveredAt: null, deliveryError: null, nextAttemptAt: null })
        expect(yield* alerterCalls).toBe(1)
        yield* Effect.flatMap(RecordingAlerter, (a) => a.setFailing(false))
        // Within its raiser's lease the sweep leaves it...
        expect(yield* runSweep).toMatchObject({ alertsAttempted: 0 })
        // ...after it, the sweep attempts it: delivered, recorded, and never attempted again.
        yield* TestClock.adjust("5 minutes")
        expect(yield* runSweep).toMatchObject({ alertsAttempted: 1, alertsDelivered: 1 })
        expect(yield* storedAlert).toMatchObject({ attempts: 1, deliveryError: null, nextAttemptAt: null })
        expect((yield* storedAlert).deliveredAt).not.toBeNull()
        yield* TestClock.adjust("30 days")
        expect(yield* runSweep).toMatchObject({ alertsAttempted: 0 })
        expect(yield* alerterCalls).toBe(2)
      })
    )

    scenario(
      "a replay with a different email is refused as a conflict and changes nothing",
      {},
      Effect.gen(function*() {
        yield* webhook("o1")
        const before = yield* order("o1")
        const exit = yield* Effect.exit(webhook("o1", { eventId: "evt_evil", email: "mallory@example.com" }))
        expect(Exit.isFailure(exit) && exit.cause._tag === "Fail" && exit.cause.error._tag).toBe("OrderConflict")
        expect(yield* order("o1")).toEqual(before)
        expect(yield* delivered).toHaveLength(1)
        const receipts = yield* Effect.flatMap(OrderStore, (s) => s.receipts({ orderKey: "test:o1", limit: 10 }))
        expect(receipts.map((r) => [r.eventId, r.outcome])).toEqual([["evt_evil", "conflict"]])
      })
    )

    const markerFails =
      Effect.gen(function*() {
        // Accepted, but the marker could not be written: never answered `sent` (503, the provider retries).
        const exit = yield* Effect.exit(webhook("o1"))
        expect(Exit.isFailure(exit) && exit.cause._tag === "Fail" && exit.cause.error._tag).toBe("StoreUnavailable")
        expect((yield* order("o1")).status).toBe("pending")
        expect((yield* runSweep).scanned).toBe(0) // the unmarked lease still holds
        yield* TestClock.adjust("5 minutes")
        expect((yield* runSweep).sent).toBe(1)
        const keys = (yield* calls).map((c) => c.idempotencyKey)
        expect(keys).toEqual(["hookgate/order/test:o1", "hookgate/order/test:o1"])
        const sent = yield* order("o1")
        expect(sent.status).toBe("sent")
        return sent
      })

    scenario(
      "an accepted send whose marker fails is resent with the same key: a mailer that honours keys sends no second email",
      { faults: { failComplete: 1 } },
      Effect.gen(function*() {
        const sent = yield* markerFails
        expect(yield* delivered).toHaveLength(1)
        expect(sent.possibleDuplicates).toBe(0)
      })
    )

    scenario(
      "an accepted send whose marker fails, through a mailer that ignores keys, counts and reports exactly one duplicate",
      { faults: { failComplete: 1 }, mailer: { honoursIdempotencyKeys: false } },
      Effect.gen(function*() {
        const sent = yield* markerFails
        expect(yield* delivered).toHaveLength(2)
        expect(sent.possibleDuplicates).toBe(1)
        const store = yield* OrderStore
        expect((yield* store.stats).possibleDuplicates).toBe(1)
        const alerts = yield* Effect.flatMap(AlertStore, (s) => s.list({ limit: 10 }))
        expect(alerts.map((a) => a.kind)).toEqual(["possible_duplicate"])
      })
    )

    scenario(
      "an accepted-then-unknown send is retried with the same key and delivered once",
      { mailer: { script: [MailerSteps.acceptedThenUnknown] } },
      Effect.gen(function*() {
        expect((yield* webhook("o1"))._tag).toBe("Retry")
        expect(yield* calls).toHaveLength(1) // Unknown is not retried in-request
        const uncertain = yield* order("o1")
        expect(uncertain.uncertain).toBe(true)
        yield* TestClock.setTime(uncertain.nextAttemptAt)
        expect((yield* runSweep).sent).toBe(1)
        expect(yield* delivered).toHaveLength(1)
      })
    )

    scenario(
      "a mailer that ignores keys, accepting every attempt and losing each answer: the capped alert counts every email that may be out",
      { mailer: { honoursIdempotencyKeys: false, otherwise: MailerSteps.acceptedThenUnknown }, policy: { maxAttempts: 3 } },
      Effect.gen(function*() {
        expect((yield* webhook("o1"))._tag).toBe("Retry")
        for (let attempt = 2; attempt <= 3; attempt++) {
          yield* TestClock.setTime((yield* order("o1")).nextAttemptAt)
          yield* runSweep
        }
        const capped = yield* order("o1")
        expect(capped).toMatchObject({ status: "capped", attempts: 3, uncertain: true, uncertainAttempts: 3 })
        // Three emails are in the buyer's inbox, and the owner is told so.
        expect(yield* delivered).toHaveLength(3)
        const alerts = yield* Effect.flatMap(AlertStore, (s) => s.list({ limit: 10 }))
        expect(alerts.map((a) => a.kind)).toEqual(["capped"])
        expect(alerts[0]!.message).toContain("3 attempt(s) may have reached the buyer")
        expect(alerts[0]!.message).toContain("ignores idempotency keys they may have received up to 3 email(s)")
        const attempted = yield* Effect.flatMap(RecordingAlerter, (a) => a.attempts)
        expect(attempted.map((a) => a.message)).toEqual([alerts[0]!.message])
      })
    )

    scenario(
      "a request that fails before the order is stored answers an error and stores nothing",
      { faults: { failPut: 1 } },
      Effect.gen(function*() {
        const exit = yield* Effect.exit(webhook("o1"))
        expect(Exit.isFailure(exit) && exit.cause._tag === "Fail" && exit.cause.error._tag).toBe("StoreUnavailable")
        const store = yield* OrderStore
        expect(Option.isNone(yield* store.get("test:o1"))).toBe(true)
        expect(yield* calls).toHaveLength(0)
        // The provider's retry then stores and sends it.
        expect((yield* webhook("o1"))._tag).toBe("Sent")
      })
    )

    scenario(
      "an unverifiable request writes nothing",
      {},
      Effect.gen(function*() {
        const request = yield* signTestRequest(
          TEST_SECRET,
          paidEvent("evt_1", { orderId: "o1", email: "a@example.com", amount: 1, currency: "usd" })
        )
        const tampered = WebhookRequest.fromParts(
          new TextEncoder().encode(request.text.replace("a@example.com", "b@example.com")),
          request.headers
        )
        const exit = yield* Effect.exit(receive("test", tampered))
        expect(Exit.isFailure(exit) && exit.cause._tag === "Fail" && exit.cause.error._tag).toBe("SignatureError")
        const stats = yield* Effect.flatMap(OrderStore, (s) => s.stats)
        expect(stats).toMatchObject({ orders: { pending: 0, sent: 0, failed: 0, capped: 0 }, receipts: 0, alerts: 0 })
      })
    )

    scenario(
      "a rejected send is not retried, marks the order failed and reaches the operator",
      { mailer: { script: [MailerSteps.rejected("invalid from address")] } },
      Effect.gen(function*() {
        const outcome = yield* webhook("o1")
        expect(outcome._tag).toBe("Failed")
        expect(yield* calls).toHaveLength(1)
        expect(yield* order("o1")).toMatchObject({ status: "failed", attempts: 1 })
        yield* TestClock.adjust("1 day")
        expect((yield* runSweep).scanned).toBe(0)
        expect((yield* webhook("o1"))._tag).toBe("Failed")
        expect(yield* calls).toHaveLength(1)
        const attempted = yield* Effect.flatMap(RecordingAlerter, (a) => a.attempts)
        expect(attempted.map((a) => [a.kind, a.orderKey])).toEqual([["failed", "test:o1"]])
        expect(attempted[0]!.message).toContain("invalid from address")
      })
    )
  })
