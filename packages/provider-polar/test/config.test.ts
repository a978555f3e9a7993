import { Providers } from "@hookgate/core/providers"
import { describeEachHmac } from "@hookgate/testing/conformance"
import { expect } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Layer } from "effect"
import { Polar } from "../src/index.js"
import { polarEvent, signPolarRequest } from "../src/testing.js"
import { atNow, NOW_S, OLD_SECRET, SECRET } from "./support.js"

const mounted = (layer: Layer.Layer<never, unknown, Providers>, entries: Record<string, string>) =>
  Providers.layer(layer).pipe(
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(entries)))))
  )

const verifyUnder = (secret: string, options: { readonly name?: string; readonly timestamp?: number } = {}) =>
  Effect.gen(function*() {
    const provider = yield* Effect.flatMap(Providers, (p) => p.get(options.name ?? "polar"))
    const request = yield* signPolarRequest(secret, polarEvent("checkout.created"), {
      id: "msg_cfg",
      ...(options.timestamp === undefined ? {} : { timestamp: options.timestamp })
    })
    return yield* provider.verify(request)
  })

describeEachHmac("polar: configuration", (it) => {
  it.effect("layerConfig reads POLAR_WEBHOOK_SECRET as a comma-separated list of raw secrets; either verifies", () =>
    Effect.gen(function*() {
      yield* atNow
      expect(yield* verifyUnder(SECRET)).toMatchObject({ provider: "polar", id: "msg_cfg", type: "checkout.created" })
      expect((yield* verifyUnder(OLD_SECRET)).id).toBe("msg_cfg")
      expect(yield* Effect.flip(verifyUnder("polar_whs_not_ours"))).toMatchObject({ reason: "no_matching_signature" })
    }).pipe(Effect.provide(mounted(Polar.layerConfig(), { POLAR_WEBHOOK_SECRET: `${SECRET}, ${OLD_SECRET}` }))))

  it.effect("layerConfig takes another config name, a tolerance and a provider name", () =>
    Effect.gen(function*() {
      yield* atNow
      expect((yield* verifyUnder(SECRET, { name: "polar-sandbox" })).provider).toBe("polar-sandbox")
      expect(yield* Effect.flip(verifyUnder(SECRET, { name: "polar-sandbox", timestamp: NOW_S - 31 }))).toMatchObject({
        reason: "timestamp_too_old"
      })
    }).pipe(
      Effect.provide(
        mounted(Polar.layerConfig({ secrets: "POLAR_SANDBOX_WEBHOOK_SECRET", name: "polar-sandbox", tolerance: "30 seconds" }), {
          POLAR_SANDBOX_WEBHOOK_SECRET: SECRET
        })
      )
    ))

  it.effect("a missing or empty secret fails the layer with a ConfigError naming it, never the value", () =>
    Effect.gen(function*() {
      const missing = yield* Effect.exit(Layer.build(mounted(Polar.layerConfig(), {})).pipe(Effect.scoped))
      expect(Exit.isFailure(missing) && String(missing.cause)).toContain("POLAR_WEBHOOK_SECRET")
      const empty = yield* Effect.exit(Layer.build(mounted(Polar.layerConfig(), { POLAR_WEBHOOK_SECRET: "," })).pipe(Effect.scoped))
      expect(Exit.isFailure(empty) && String(empty.cause)).toContain("holds no webhook secret")
      expect(String(empty)).not.toContain(SECRET)
    }))
})
