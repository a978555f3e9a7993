import { Providers } from "@hookgate/core/providers"
import { describeEachHmac } from "@hookgate/testing/conformance"
import { expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Layer, Redacted } from "effect"
import { StandardWebhooks } from "../src/index.js"
import { signStandardRequest } from "../src/testing.js"
import { atNow, OLD_SECRET, polarFulfilment, RAW_SECRET, SECRET } from "./support.js"

const mounted = (layer: Layer.Layer<never, unknown, Providers>, entries: Record<string, string>) =>
  Providers.layer(layer).pipe(
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(entries)))))
  )

const verifyUnder = (secret: string, options: { readonly secretFormat?: "raw" } = {}) =>
  Effect.gen(function*() {
    const provider = yield* Effect.flatMap(Providers, (p) => p.get("polar"))
    return yield* provider.verify(yield* signStandardRequest(secret, `{"type":"ping"}`, options))
  })

const polarConfig = (secretFormat?: "raw") =>
  StandardWebhooks.layerConfig({
    name: "polar",
    secrets: "POLAR_WEBHOOK_SECRET",
    fulfilment: polarFulfilment,
    ...(secretFormat === undefined ? {} : { secretFormat })
  })

describeEachHmac("standard webhooks: configuration", (it) => {
  it.effect("layerConfig reads the named config as a comma-separated list; either secret verifies", () =>
    Effect.gen(function*() {
      yield* atNow
      expect((yield* verifyUnder(SECRET)).type).toBe("ping")
      expect((yield* verifyUnder(OLD_SECRET)).type).toBe("ping")
    }).pipe(Effect.provide(mounted(polarConfig(), { POLAR_WEBHOOK_SECRET: `${SECRET},${OLD_SECRET}` }))))

  it.effect("layerConfig with secretFormat raw takes Polar's secrets as they are", () =>
    Effect.gen(function*() {
      yield* atNow
      expect((yield* verifyUnder(RAW_SECRET, { secretFormat: "raw" })).type).toBe("ping")
    }).pipe(Effect.provide(mounted(polarConfig("raw"), { POLAR_WEBHOOK_SECRET: RAW_SECRET }))))

  it.effect("a secret that is not whsec_<base64> fails the layer, naming its position and not its value", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(
        Layer.build(mounted(polarConfig(), { POLAR_WEBHOOK_SECRET: `${SECRET},whsec_not*base64` })).pipe(Effect.scoped)
      )
      expect(Exit.isFailure(exit) && String(exit.cause)).toContain("webhook secret #2 is not whsec_<base64>")
      expect(String(exit)).not.toContain("not*base64")
      expect(String(exit)).not.toContain(SECRET)
      const missing = yield* Effect.exit(Layer.build(mounted(polarConfig(), {})).pipe(Effect.scoped))
      expect(Exit.isFailure(missing) && String(missing.cause)).toContain("POLAR_WEBHOOK_SECRET")
    }))
})

it.effect("a Standard Webhooks provider declares that it cannot reconcile", () =>
  Effect.map(
    StandardWebhooks.make({ name: "acme", secrets: [Redacted.make(SECRET)], fulfilment: () => Effect.succeedNone }),
    (provider) => expect(provider.reconcile).toEqual({ _tag: "CannotReconcile", reason: "Standard Webhooks defines no API to list past messages" })
  ))
