import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Option } from "effect"
import { durationConfig, parseDuration, RetryPolicyConfig } from "@hookgate/core"
import { secretsConfig } from "@hookgate/core/providers"

const withEnv = (env: Record<string, string>) => Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))
const millis = (text: string) => Option.map(parseDuration(text), Duration.toMillis)

describe("duration settings", () => {
  it("read what `config check` prints (Duration.format), Effect's words, bare milliseconds and ISO 8601", () => {
    const cases: ReadonlyArray<readonly [string, number]> = [
      ["5m", 300_000],
      ["2m 30s", 150_000],
      ["1h 30m", 5_400_000],
      ["500ms", 500],
      ["1d 2h", 93_600_000],
      ["5 minutes", 300_000],
      ["1 second", 1000],
      ["2 minutes 30 seconds", 150_000],
      ["30000", 30_000],
      ["0", 0],
      ["PT5M", 300_000],
      ["pt1h30m", 5_400_000],
      ["PT0.5S", 500],
      ["P1D", 86_400_000],
      [" 10s ", 10_000],
      ["1500 micros", 1.5],
      ["20000 millis", 20_000]
    ]
    for (const [text, expected] of cases) expect({ text, ms: millis(text) }).toEqual({ text, ms: Option.some(expected) })
    // What Duration.format prints reads back to the same duration.
    for (const ms of [1, 999, 1000, 61_000, 150_000, 3_600_000, 90_061_001]) {
      const printed = Duration.format(Duration.millis(ms))
      expect({ printed, ms: millis(printed) }).toEqual({ printed, ms: Option.some(ms) })
    }
  })

  it("refuse anything else", () => {
    for (const text of ["", "foo", "5 parsecs", "m5", "PT", "P", "5m foo", "-5s", "5m,30s", "PT5X"]) {
      expect({ text, ms: millis(text) }).toEqual({ text, ms: Option.none() })
    }
  })

  it.effect("a refused setting names itself and lists the accepted forms; HOOKGATE_LEASE=5m is a lease of 5 minutes", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(durationConfig("HOOKGATE_LEASE").pipe(withEnv({ HOOKGATE_LEASE: "foo" })))
      expect(String(error)).toContain("HOOKGATE_LEASE")
      for (const form of ["5m", "2m 30s", "5 minutes", "30000", "PT5M"]) expect(error.message).toContain(form)
      const options = yield* RetryPolicyConfig.pipe(withEnv({ HOOKGATE_LEASE: "5m", HOOKGATE_SWEEP_EVERY: "PT10M", HOOKGATE_RETRY_BACKOFF: "30000" }))
      expect(Duration.toMillis(options.leaseFor!)).toBe(300_000)
      expect(Duration.toMillis(options.sweepEvery!)).toBe(600_000)
      expect(Duration.toMillis(options.backoffBase!)).toBe(30_000)
    }))

  it.effect("an unset webhook secret is reported as not set, never as \"<redacted>\"", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(secretsConfig("CREEM_WEBHOOK_SECRET").pipe(withEnv({})))
      expect(String(error)).toContain("CREEM_WEBHOOK_SECRET")
      expect(String(error)).not.toContain("<redacted>")
      const secrets = yield* secretsConfig("CREEM_WEBHOOK_SECRET").pipe(withEnv({ CREEM_WEBHOOK_SECRET: "whsec_a, whsec_b" }))
      expect(secrets.length).toBe(2)
    }))
})
