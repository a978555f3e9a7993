import { describe, expect, it } from "@effect/vitest"
import { receive, RetryPolicy } from "@hookgate/core"
import { campaignBatchMessage, CampaignStore } from "@hookgate/core/campaigns"
import { campaignBatchKey } from "@hookgate/core/mail"
import { runningCampaign, recipients } from "@hookgate/testing/conformance"
import {
  eventually,
  MailerSteps,
  MemoryAlertStore,
  MemoryLedgers,
  MemoryStore,
  paidEvent,
  RecordingAlerter,
  ScriptedMailer,
  signTestRequest,
  TEST_SECRET,
  TestPipeline,
  TestProvider
} from "@hookgate/testing"
import { Effect, Fiber, Layer, Option, TestClock } from "effect"
import { sendCampaignBatch } from "../src/campaigns/send-batch.js"
import { realPause } from "@hookgate/testing"

// One send policy for orders and campaigns: a Transient answer with a
// `retry-after` is retried in-request no sooner than it asked, on both paths.

const retryAfter = { script: [MailerSteps.transient({ retryAfter: "1 second" })] }
const calls = Effect.flatMap(ScriptedMailer, (m) => m.calls)

/** Gives the forked send real time to make any call it would make without the clock moving. */
const settle = Effect.repeatN(realPause(), 20)

/** Runs `send` in a fiber: one call at once, none more until 1 s has passed, the retry at 1 s. */
const expectRetryAfterHonoured = <A, E, R>(send: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.fork(send)
    yield* eventually(calls, (list) => list.length > 0) // verifying a signature is real async work
    yield* settle
    expect(yield* calls).toHaveLength(1)
    yield* TestClock.adjust("999 millis")
    yield* settle
    expect(yield* calls).toHaveLength(1)
    yield* TestClock.adjust("1 millis")
    const result = yield* Fiber.join(fiber)
    expect(yield* calls).toHaveLength(2)
    return result
  })

const campaignLayer = (mailer: Parameters<typeof ScriptedMailer.layer>[0]) =>
  Layer.mergeAll(
    MemoryLedgers.layer.pipe(Layer.provideMerge(MemoryAlertStore.layer)),
    ScriptedMailer.layer(mailer),
    RecordingAlerter.layer(),
    RetryPolicy.layer({ inRequestBase: 0 })
  )

const sendBatchOne = Effect.gen(function*() {
  const store = yield* CampaignStore
  return yield* sendCampaignBatch(campaignBatchMessage("c1", 1), (id: string) =>
    Effect.map(store.get(id), Option.map((row) => row.template)))
})

describe("send policy", () => {
  it.effect("orders: a Transient retry waits out the mailer's retry-after", () =>
    Effect.gen(function*() {
      const request = yield* signTestRequest(
        TEST_SECRET,
        paidEvent("evt_o1", { orderId: "o1", email: "o1@example.com", amount: 100, currency: "usd" })
      )
      const outcome = yield* expectRetryAfterHonoured(receive("test", request))
      expect(outcome._tag).toBe("Sent")
    }).pipe(Effect.provide(TestPipeline.layer({
      store: MemoryStore.layer,
      providers: [TestProvider.make({ secret: TEST_SECRET })],
      mailer: retryAfter
    }))))

  it.effect("campaigns, one recipient at a time: the retry waits out retry-after like the order path", () =>
    Effect.gen(function*() {
      yield* runningCampaign("c1", recipients(1))
      const outcome = yield* expectRetryAfterHonoured(sendBatchOne)
      expect(outcome).toMatchObject({ _tag: "Sent", sent: 1, retry: 0 })
    }).pipe(Effect.provide(campaignLayer(retryAfter))))

  it.effect("campaigns through sendBatch: the retry waits out retry-after like the order path", () =>
    Effect.gen(function*() {
      yield* runningCampaign("c1", recipients(1))
      const outcome = yield* expectRetryAfterHonoured(sendBatchOne)
      expect(outcome).toMatchObject({ _tag: "Sent", sent: 1, retry: 0 })
      expect((yield* calls).map((c) => c.idempotencyKey)).toEqual([yield* campaignBatchKey("c1", 1), yield* campaignBatchKey("c1", 1)])
    }).pipe(Effect.provide(campaignLayer({ ...retryAfter, batch: true }))))

  it.effect("campaigns: a misconfigured mailer never fails a recipient at the cap, nor counts an attempt; it is held until fixed", () =>
    Effect.gen(function*() {
      yield* runningCampaign("c1", recipients(1))
      const outcome = yield* sendBatchOne
      // Without a breaker layer: held for the default probe's first delay.
      expect(outcome).toMatchObject({ _tag: "Held", sent: 0, nextProbeAt: 30_000 })
      const store = yield* CampaignStore
      expect(yield* store.counts("c1")).toMatchObject({ reserved: 1, failed: 0, sent: 0 })
      const again = yield* store.reserve("c1", 1, { size: 100, token: "t", now: 1, until: 2 })
      expect(again._tag === "Leased" && again.members.map((m) => m.attempts)).toEqual([0])
    }).pipe(Effect.provide(Layer.merge(
      campaignLayer({ script: [MailerSteps.misconfigured()] }),
      RetryPolicy.layer({ inRequestBase: 0, maxAttempts: 1 })
    ))))

  it.effect("campaigns: a retry-after over the in-request limit is left to the queue, at once", () =>
    Effect.gen(function*() {
      yield* runningCampaign("c1", recipients(1))
      const outcome = yield* sendBatchOne
      expect(outcome).toMatchObject({ _tag: "Sent", sent: 0, retry: 1 })
      expect(yield* calls).toHaveLength(1)
    }).pipe(Effect.provide(campaignLayer({ script: [MailerSteps.transient({ retryAfter: "10 seconds" })] }))))
})
