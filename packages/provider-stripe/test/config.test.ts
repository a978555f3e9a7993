import { Providers } from "@hookgate/core/providers"
import { describeEachHmac } from "@hookgate/testing/conformance"
import { expect } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Layer, Redacted } from "effect"
import { Stripe } from "../src/index.js"
import { signStripeRequest } from "../src/testing.js"
import { atNow, NOW_S, OLD_SECRET, SECRET } from "./support.js"

const withConfig = (entries: Record<string, string>) =>
  Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(entries))))

const mounted = (layer: Layer.Layer<never, unknown, Providers>, entries: Record<string, string>) =>
  Providers.layer(layer).pipe(Layer.provide(withConfig(entries)))

const verifyUnder = (secret: string) =>
  Effect.gen(function*() {
    const provider = yield* Effect.flatMap(Providers, (p) => p.get("stripe"))
    const request = yield* signStripeRequest(secret, `{"id":"evt_cfg","type":"ping","data":{"object":{}}}`)
    return yield* provider.verify(request)
  })

describeEachHmac("stripe: configuration", (it) => {
  it.effect("layerConfig reads STRIPE_WEBHOOK_SECRET as a comma-separated list; either secret verifies", () =>
    Effect.gen(function*() {
      yield* atNow
      expect((yield* verifyUnder(SECRET)).id).toBe("evt_cfg")
      expect((yield* verifyUnder(OLD_SECRET)).id).toBe("evt_cfg")
      expect(yield* Effect.flip(verifyUnder("whsec_other"))).toMatchObject({ reason: "no_matching_signature" })
    }).pipe(Effect.provide(mounted(Stripe.layerConfig(), { STRIPE_WEBHOOK_SECRET: ` ${SECRET} , ${OLD_SECRET},` }))))

  it.effect("layerConfig takes another config name, a tolerance and a provider name", () =>
    Effect.gen(function*() {
      yield* atNow
      const registry = yield* Providers
      expect(yield* registry.names).toEqual(["stripe-eu"])
      const provider = yield* registry.get("stripe-eu")
      const stale = yield* signStripeRequest(SECRET, `{"id":"evt_t","type":"ping"}`, { timestamp: NOW_S - 31 })
      expect(yield* Effect.flip(provider.verify(stale))).toMatchObject({ provider: "stripe-eu", reason: "timestamp_too_old" })
    }).pipe(
      Effect.provide(
        mounted(Stripe.layerConfig({ secrets: "STRIPE_EU_SECRET", tolerance: "30 seconds", name: "stripe-eu" }), {
          STRIPE_EU_SECRET: SECRET
        })
      )
    ))

  it.effect("a missing or empty secret fails the layer with a ConfigError that does not carry the value", () =>
    Effect.gen(function*() {
      const missing = yield* Effect.exit(Layer.build(mounted(Stripe.layerConfig(), {})).pipe(Effect.scoped))
      expect(Exit.isFailure(missing) && String(missing.cause)).toContain("STRIPE_WEBHOOK_SECRET")
      const empty = yield* Effect.exit(Layer.build(mounted(Stripe.layerConfig(), { STRIPE_WEBHOOK_SECRET: " , " })).pipe(Effect.scoped))
      expect(Exit.isFailure(empty) && String(empty.cause)).toContain("holds no webhook secret")
    }))

  it.effect("an empty secret given to make is a defect naming its position, not its value", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Stripe.make({ secrets: [Redacted.make(SECRET), Redacted.make("")] }))
      expect(Exit.isFailure(exit) && String(exit.cause)).toContain("webhook secret #2 is empty")
      expect(String(exit)).not.toContain(SECRET)
    }))
})
