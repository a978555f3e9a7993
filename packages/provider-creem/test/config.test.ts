import { Providers } from "@hookgate/core/providers"
import { describeEachHmac } from "@hookgate/testing/conformance"
import { expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Layer, Redacted } from "effect"
import { Creem } from "../src/index.js"
import { creemEvent, signCreemRequest } from "../src/testing.js"
import { OLD_SECRET, SECRET } from "./support.js"

const mounted = (layer: Layer.Layer<never, unknown, Providers>, entries: Record<string, string>) =>
  Providers.layer(layer).pipe(
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(entries)))))
  )

const verifyUnder = (secret: string, name = "creem") =>
  Effect.gen(function*() {
    const provider = yield* Effect.flatMap(Providers, (p) => p.get(name))
    return yield* provider.verify(yield* signCreemRequest(secret, creemEvent("evt_cfg", "refund.created")))
  })

describeEachHmac("creem: configuration", (it) => {
  it.effect("layerConfig reads CREEM_WEBHOOK_SECRET as a comma-separated list; either secret verifies", () =>
    Effect.gen(function*() {
      expect((yield* verifyUnder(SECRET)).id).toBe("evt_cfg")
      expect((yield* verifyUnder(OLD_SECRET)).id).toBe("evt_cfg")
      expect(yield* Effect.flip(verifyUnder("whsec_other"))).toMatchObject({ reason: "no_matching_signature" })
    }).pipe(Effect.provide(mounted(Creem.layerConfig(), { CREEM_WEBHOOK_SECRET: `${SECRET},${OLD_SECRET}` }))))

  it.effect("layerConfig takes another config name and provider name", () =>
    Effect.gen(function*() {
      expect((yield* verifyUnder(SECRET, "creem-test")).provider).toBe("creem-test")
    }).pipe(
      Effect.provide(mounted(Creem.layerConfig({ secrets: "CREEM_TEST_SECRET", name: "creem-test" }), { CREEM_TEST_SECRET: SECRET }))
    ))

  it.effect("a missing secret fails the layer with a ConfigError naming it", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Layer.build(mounted(Creem.layerConfig(), {})).pipe(Effect.scoped))
      expect(Exit.isFailure(exit) && String(exit.cause)).toContain("CREEM_WEBHOOK_SECRET")
    }))
})

it.effect("without an API key Creem declares that it does not reconcile, and why", () =>
  Effect.map(Creem.make({ secrets: [Redacted.make("whsec_creem_reconcile_check")] }), (provider) =>
    expect(provider.reconcile).toEqual({ _tag: "CannotReconcile", reason: expect.stringContaining("no CREEM_API_KEY is set") })))

it.effect("layerConfig with CREEM_API_KEY reconciles detect-only", () =>
  Effect.gen(function*() {
    const provider = yield* Effect.flatMap(Providers, (p) => p.get("creem"))
    expect(provider.reconcile).toMatchObject({ _tag: "DetectOnly", label: "Creem", reason: Creem.UNSENDABLE_REASON })
  }).pipe(Effect.provide(mounted(Creem.layerConfig(), { CREEM_WEBHOOK_SECRET: SECRET, CREEM_API_KEY: "creem_test_cfg" }))))
