import { Providers } from "@hookgate/core/providers"
import { describeEachHmac } from "@hookgate/testing/conformance"
import { expect } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Layer, Redacted } from "effect"
import { LemonSqueezy } from "../src/index.js"
import { lemonSqueezyEvent, signLemonSqueezyRequest } from "../src/testing.js"
import { OLD_SECRET, SECRET } from "./support.js"

const mounted = (layer: Layer.Layer<never, unknown, Providers>, entries: Record<string, string>) =>
  Providers.layer(layer).pipe(
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(entries)))))
  )

const verifyUnder = (secret: string, name = "lemonsqueezy") =>
  Effect.gen(function*() {
    const provider = yield* Effect.flatMap(Providers, (p) => p.get(name))
    return yield* provider.verify(yield* signLemonSqueezyRequest(secret, lemonSqueezyEvent("subscription_created", "subscriptions", "7")))
  })

describeEachHmac("lemon squeezy: configuration", (it) => {
  it.effect("layerConfig reads LEMONSQUEEZY_WEBHOOK_SECRET as a comma-separated list; either secret verifies", () =>
    Effect.gen(function*() {
      expect((yield* verifyUnder(SECRET)).id).toBe("subscription_created:subscriptions:7")
      expect((yield* verifyUnder(OLD_SECRET)).id).toBe("subscription_created:subscriptions:7")
      expect(yield* Effect.flip(verifyUnder("some_other_secret"))).toMatchObject({ reason: "no_matching_signature" })
    }).pipe(Effect.provide(mounted(LemonSqueezy.layerConfig(), { LEMONSQUEEZY_WEBHOOK_SECRET: `${SECRET},${OLD_SECRET}` }))))

  it.effect("layerConfig takes another config name and provider name", () =>
    Effect.gen(function*() {
      expect((yield* verifyUnder(SECRET, "lemon-test")).provider).toBe("lemon-test")
    }).pipe(
      Effect.provide(
        mounted(LemonSqueezy.layerConfig({ secrets: "LEMONSQUEEZY_TEST_WEBHOOK_SECRET", name: "lemon-test" }), {
          LEMONSQUEEZY_TEST_WEBHOOK_SECRET: SECRET
        })
      )
    ))

  it.effect("a missing or empty secret fails the layer with a ConfigError naming it, never the value", () =>
    Effect.gen(function*() {
      const missing = yield* Effect.exit(Layer.build(mounted(LemonSqueezy.layerConfig(), {})).pipe(Effect.scoped))
      expect(Exit.isFailure(missing) && String(missing.cause)).toContain("LEMONSQUEEZY_WEBHOOK_SECRET")
      const empty = yield* Effect.exit(
        Layer.build(mounted(LemonSqueezy.layerConfig(), { LEMONSQUEEZY_WEBHOOK_SECRET: " , " })).pipe(Effect.scoped)
      )
      expect(Exit.isFailure(empty) && String(empty.cause)).toContain("holds no webhook secret")
      const made = yield* Effect.exit(LemonSqueezy.make({ secrets: [Redacted.make(SECRET), Redacted.make("")] }))
      expect(Exit.isFailure(made) && String(made.cause)).toContain("webhook secret #2 is empty")
      expect(String(made)).not.toContain(SECRET)
    }))
})
