import { describe, expect, it } from "@effect/vitest"
import { Clock, Duration, Effect, Layer, Option, Random } from "effect"
import * as TestClock from "effect/TestClock"
import { OrderStore, receive, RetryPolicy, sweep } from "../src/index.js"
import { attemptSpan, KeyWindowExceeded, Mailer, type MailerShape, withKeyWindowCheck } from "../src/mail/index.js"
import {
  failureOf,
  MailerSteps,
  MemoryStore,
  paidEvent,
  signTestRequest,
  TEST_SECRET,
  TestPipeline,
  TestProvider
} from "@hookgate/testing"

const RESEND_WINDOW = Duration.hours(24)

const mailerWithWindow = (window: Duration.Duration | undefined, honours = true): MailerShape => ({
  name: "resend",
  honoursIdempotencyKeys: honours,
  ...(window === undefined ? {} : { idempotencyKeyWindow: window }),
  send: () => Effect.die("not sent in these tests")
})

const build = (layer: Layer.Layer<Mailer | RetryPolicy, KeyWindowExceeded>) => Effect.scoped(Layer.build(layer))

describe("the RetryPolicy against the mailer's idempotency-key window", () => {
  it.effect("the default policy: every attempt of an order that always fails lands inside Resend's 24 h window", () =>
    Effect.gen(function*() {
      const policy = yield* RetryPolicy
      const request = yield* signTestRequest(
        TEST_SECRET,
        paidEvent("evt_w", { orderId: "w1", email: "w@example.com", amount: 100, currency: "usd" })
      )
      const attemptsAt: Array<number> = []
      const attempts = Effect.map(OrderStore, (store) => store.get("test:w1")).pipe(
        Effect.flatten,
        Effect.map(Option.match({ onNone: () => ({ attempts: 0, status: "none" }), onSome: (o) => o }))
      )
      yield* receive("test", request).pipe(Effect.ignore)
      attemptsAt.push(yield* Clock.currentTimeMillis)
      // The sweep on its cadence, the TestClock moving a sweep at a time, until the order is capped.
      for (let i = 0; i < 24 * 6 * 2 && (yield* attempts).status !== "capped"; i++) {
        yield* TestClock.adjust(Duration.minutes(10))
        const before = (yield* attempts).attempts
        yield* sweep()
        if ((yield* attempts).attempts > before) attemptsAt.push(yield* Clock.currentTimeMillis)
      }
      expect((yield* attempts).status).toBe("capped")
      expect(attemptsAt).toHaveLength(policy.maxAttempts)
      const span = attemptsAt[attemptsAt.length - 1]! - attemptsAt[0]!
      expect(span).toBeLessThanOrEqual(Duration.toMillis(yield* attemptSpan(policy))) // the bound holds
      expect(span).toBeLessThan(Duration.toMillis(RESEND_WINDOW))
    }).pipe(
      Effect.provide(TestPipeline.layer({
        store: MemoryStore.layer,
        providers: [TestProvider.make({ secret: TEST_SECRET })],
        mailer: { otherwise: MailerSteps.transient() }
      })),
      // Every jittered delay at its top: the slowest the default policy can be.
      Effect.withRandom(Random.fixed([0.999_999]))
    ))

  it.effect("the default policy's worst-case span is about 15 hours: inside 24 h", () =>
    Effect.gen(function*() {
      const span = Duration.toHours(yield* attemptSpan(yield* RetryPolicy.make()))
      expect(span).toBeGreaterThan(14)
      expect(span).toBeLessThan(16)
    }))

  it.effect("a layer combining the default policy with Resend's window builds", () =>
    Effect.gen(function*() {
      yield* build(withKeyWindowCheck(Layer.merge(RetryPolicy.layer(), Layer.succeed(Mailer, mailerWithWindow(RESEND_WINDOW)))))
    }))

  it.effect("a stretched policy is refused when the layer combining it with Resend's window is built, naming the figures", () =>
    Effect.gen(function*() {
      const error = yield* failureOf(build(withKeyWindowCheck(Layer.merge(
        RetryPolicy.layer({ maxAttempts: 12 }),
        Layer.succeed(Mailer, mailerWithWindow(RESEND_WINDOW))
      ))))
      expect(error).toBeInstanceOf(KeyWindowExceeded)
      expect(error.maxAttempts).toBe(12)
      expect(error.windowMillis).toBe(Duration.toMillis(RESEND_WINDOW))
      expect(error.spanMillis).toBeGreaterThan(error.windowMillis)
      expect(error.message).toMatch(/12 attempts can span [\d.]+ h, past resend's idempotency-key window of 24 h/)
    }))

  it.effect("a mailer without a key window (Cloudflare Email, the outbox) bounds nothing", () =>
    Effect.gen(function*() {
      yield* build(withKeyWindowCheck(Layer.merge(RetryPolicy.layer({ maxAttempts: 30 }), Layer.succeed(Mailer, mailerWithWindow(undefined, false)))))
    }))
})
