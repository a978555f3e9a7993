import { Providers } from "@hookgate/core/providers"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Layer, Redacted } from "effect"
import { vi } from "vitest"
import * as CreemProvider from "../src/provider.js"
import { creemEvent, signCreemRequest } from "../src/testing.js"
import { OLD_SECRET, SECRET } from "./support.js"

const mounted = (layer: Layer.Layer<never, unknown, Providers>, entries: Record<string, string>) =>
  layer.pipe(
    Layer.provideMerge(Providers.layer()),
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(entries)))))
  )

const verifyUnder = (secret: string, name = "creem") =>
  Effect.gen(function*() {
    const provider = yield* Effect.flatMap(Providers, (p) => p.get(name))
    return yield* provider.verify(yield* signCreemRequest(secret, creemEvent("evt_cfg", "refund.created")))
  })

describe("creem: configuration", () => {
  it.effect("layerConfig reads CREEM_WEBHOOK_SECRET as a comma-separated list; either secret verifies", () =>
    Effect.gen(function*() {
      expect((yield* verifyUnder(SECRET)).id).toBe("evt_cfg")
      expect((yield* verifyUnder(OLD_SECRET)).id).toBe("evt_cfg")
      expect(yield* Effect.flip(verifyUnder("whsec_other"))).toMatchObject({ reason: "no_matching_signature" })
    }).pipe(Effect.provide(mounted(CreemProvider.layerConfig(), { CREEM_WEBHOOK_SECRET: `${SECRET},${OLD_SECRET}` }))))

  it.effect("layerConfig takes another config name and provider name", () =>
    Effect.gen(function*() {
      expect((yield* verifyUnder(SECRET, "creem-test")).provider).toBe("creem-test")
    }).pipe(
      Effect.provide(mounted(CreemProvider.layerConfig({ secrets: "CREEM_TEST_SECRET", name: "creem-test" }), { CREEM_TEST_SECRET: SECRET }))
    ))

  it.effect("a missing secret fails the layer with a ConfigError naming it", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Layer.build(mounted(CreemProvider.layerConfig(), {})).pipe(Effect.scoped))
      expect(Exit.isFailure(exit) && String(exit.cause)).toContain("CREEM_WEBHOOK_SECRET")
    }))

  it.effect("each secret's key is imported once, when the provider is made, not per request", () =>
    Effect.gen(function*() {
      const importKey = vi.spyOn(crypto.subtle, "importKey")
      try {
        const provider = yield* CreemProvider.make({ secrets: [Redacted.make(SECRET), Redacted.make(OLD_SECRET)] })
        expect(importKey).toHaveBeenCalledTimes(2)
        const requests = yield* Effect.forEach([SECRET, OLD_SECRET, SECRET], (s) => signCreemRequest(s, creemEvent("evt_k", "x")))
        importKey.mockClear()
        yield* Effect.forEach(requests, provider.verify)
        expect(importKey).not.toHaveBeenCalled()
      } finally {
        importKey.mockRestore()
      }
    }))
})
