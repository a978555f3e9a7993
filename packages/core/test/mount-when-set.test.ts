import { TestProvider } from "@hookgate/testing"
import { mountWhenSet, Providers } from "@hookgate/core/providers"
import { expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Layer, Option, Redacted } from "effect"

// mountWhenSet inside Providers.layer (read in the registry's own layer step) and on its
// own (a layer of its own, as any other provider layer): the same providers either way.
const withConfig = (entries: Record<string, string>) => Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(entries))))
const mountedAs = (name: string) => mountWhenSet(`${name.toUpperCase()}_SECRET`, (secrets) => Providers.register(TestProvider.make({ secret: secrets, name })))
const names = (registry: Layer.Layer<Providers, unknown>, entries: Record<string, string>) =>
  Effect.flatMap(Providers, (p) => p.names).pipe(Effect.provide(registry), Effect.provide(withConfig(entries)))

const inRegistry = Providers.layer(mountedAs("alpha"), mountedAs("beta"), mountedAs("gamma"))
const onTheirOwn = Layer.provideMerge(Layer.mergeAll(mountedAs("alpha"), mountedAs("beta"), mountedAs("gamma")), Providers.layer())

it.effect("mountWhenSet mounts the providers whose secrets are set, in Providers.layer as on its own", () =>
  Effect.gen(function*() {
    for (const registry of [inRegistry, onTheirOwn]) {
      expect([...yield* names(registry, { ALPHA_SECRET: "whsec_a", GAMMA_SECRET: "whsec_c,whsec_d" })].sort()).toEqual(["alpha", "gamma"])
      expect(yield* names(registry, {})).toEqual([])
    }
  }))

it.effect("a secret set but empty fails the layer naming it, in Providers.layer as on its own", () =>
  Effect.gen(function*() {
    for (const registry of [inRegistry, onTheirOwn]) {
      const exit = yield* Effect.exit(names(registry, { BETA_SECRET: " , " }))
      expect(Exit.isFailure(exit) && String(exit.cause)).toContain("BETA_SECRET")
    }
  }))

it.effect("an Option already read mounts at once", () =>
  Effect.gen(function*() {
    const some = mountWhenSet(Option.some([Redacted.make("whsec_x")] as const), (secrets) =>
      Providers.register(TestProvider.make({ secret: secrets, name: "read" })))
    expect(yield* names(Providers.layer(some), {})).toEqual(["read"])
    expect(yield* names(Providers.layer(mountWhenSet(Option.none(), () => Layer.empty)), {})).toEqual([])
  }))
