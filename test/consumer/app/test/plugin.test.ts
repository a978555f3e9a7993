// docs/plugins.md's mounting block, run: both providers from Config, or only those
// whose secret is set. (The page's Acme plugin and its conformance test are whole
// files the consumer test writes beside this one; vitest runs them as they are.)
import { Providers } from "@hookgate/core/providers"
import { ConfigProvider, Effect, Exit, Layer } from "effect"
import { expect, it } from "vitest"
import { BothProviders, MountedProviders } from "../snippets/docs-plugins.js"

const withSettings = (entries: ReadonlyArray<readonly [string, string]>) =>
  Layer.setConfigProvider(ConfigProvider.fromMap(new Map(entries)))
const namesOf = <E>(layer: Layer.Layer<Providers, E>, entries: ReadonlyArray<readonly [string, string]>) =>
  Effect.runPromiseExit(Effect.flatMap(Providers, (providers) => providers.names).pipe(
    Effect.provide(layer.pipe(Layer.provide(withSettings(entries))))
  ))

it("mounts only the providers whose secret is set", async () => {
  const onlyStripe = await namesOf(MountedProviders, [["STRIPE_WEBHOOK_SECRET", "whsec_app_stripe"]])
  expect(onlyStripe).toEqual(Exit.succeed(["stripe"]))
  const onlyLemon = await namesOf(MountedProviders, [["LEMONSQUEEZY_WEBHOOK_SECRET", "app-lemonsqueezy-secret"]])
  expect(onlyLemon).toEqual(Exit.succeed(["lemonsqueezy"]))
})

it("mounts both from Config, and fails without a secret", async () => {
  const both = await namesOf(BothProviders, [["STRIPE_WEBHOOK_SECRET", "whsec_a"], ["CREEM_WEBHOOK_SECRET", "whsec_b"]])
  expect(Exit.map(both, (names) => [...names].sort())).toEqual(Exit.succeed(["creem", "stripe"]))
  expect(Exit.isFailure(await namesOf(BothProviders, [["STRIPE_WEBHOOK_SECRET", "whsec_a"]]))).toBe(true)
})
