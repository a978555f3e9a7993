import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Layer } from "effect"
import { RetryPolicy, RetryPolicyConfig, retryPolicyProblems } from "@hookgate/core"

const withEnv = (env: Record<string, string>) => Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))

describe("retry settings are validated", () => {
  it("names every problem: zero lease and cadence, a cap below 1, a lease within the send timeout", () => {
    expect(retryPolicyProblems({ leaseFor: "0 seconds", sweepEvery: 0, maxAttempts: 0 }).map((p) => p.setting).sort())
      .toEqual(["leaseFor", "maxAttempts", "sweepEvery"])
    expect(retryPolicyProblems({ leaseFor: "1 minute", sendTimeout: "1 minute" })).toEqual([])
    expect(retryPolicyProblems({ leaseFor: "1 minute", sendTimeout: "1 minute" }, { requireLeaseMargin: true })[0]?.message)
      .toContain("must exceed the send timeout (1m) by at least 1s")
    expect(retryPolicyProblems({ leaseFor: "5 minutes" }, { requireLeaseMargin: true })).toEqual([])
  })

  it.effect("layerConfig refuses HOOKGATE_LEASE=0 seconds and HOOKGATE_SWEEP_EVERY=0 seconds, naming both", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(RetryPolicyConfig.pipe(withEnv({ HOOKGATE_LEASE: "0 seconds", HOOKGATE_SWEEP_EVERY: "0 seconds" })))
      expect(Exit.isFailure(exit)).toBe(true)
      const text = String(Exit.isFailure(exit) ? exit.cause : "")
      expect(text).toContain("HOOKGATE_LEASE")
      expect(text).toContain("HOOKGATE_SWEEP_EVERY")
      const ok = yield* RetryPolicyConfig.pipe(withEnv({ HOOKGATE_LEASE: "2 minutes" }))
      expect(ok.leaseFor).toBeDefined()
    }))

  it.effect("layer(options) dies on an out-of-range option instead of building a policy that spins", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Layer.build(RetryPolicy.layer({ sweepEvery: "0 millis" })).pipe(Effect.scoped))
      expect(Exit.isFailure(exit) && String(exit.cause)).toContain("sweepEvery must be a positive duration")
    }))
})
