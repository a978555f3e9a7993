import { describe, expect, it } from "@effect/vitest"
import { backoffDelay, makeRetryPolicy } from "../src/kernel/retry-policy.js"
import { Duration, Effect, Schedule } from "effect"

describe("RetryPolicy", () => {
  it.effect("the durable backoff grows by the schedule and stops at the cap", () =>
    Effect.gen(function*() {
      const policy = { ...makeRetryPolicy({ maxBackoff: "1 hour" }), backoff: Schedule.exponential("1 minute", 3) }
      const delays = yield* Effect.forEach([1, 2, 3, 4, 5, 6], (n) => backoffDelay(policy, n))
      expect(delays.map(Duration.toMinutes)).toEqual([1, 3, 9, 27, 60, 60])
    }))

  it.effect("the default backoff is jittered around 1, 3, 9 minutes", () =>
    Effect.gen(function*() {
      const policy = makeRetryPolicy()
      const [first, second, third] = yield* Effect.forEach([1, 2, 3], (n) => backoffDelay(policy, n))
      expect(Duration.toSeconds(first!)).toBeGreaterThanOrEqual(48)
      expect(Duration.toSeconds(first!)).toBeLessThanOrEqual(72)
      expect(Duration.toSeconds(second!)).toBeGreaterThanOrEqual(144)
      expect(Duration.toSeconds(third!)).toBeLessThanOrEqual(9 * 60 * 1.2)
    }))

  it("defaults: cap 8, lease 5 minutes, send timeout half the lease", () => {
    const policy = makeRetryPolicy()
    expect(policy.maxAttempts).toBe(8)
    expect(Duration.toMinutes(policy.leaseFor)).toBe(5)
    expect(Duration.toMillis(policy.sendTimeout)).toBe(150_000)
  })
})

