import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type { VerifiedEvent, WebhookRequest } from "./webhook.js"
import type { Fulfilment } from "../kernel/fulfilment.js"
import { type MalformedPayload, type SignatureError, UnknownProvider } from "./errors.js"
import { buildInStep } from "../kernel/build-in-step.js"
import { mountingOf } from "./mount.js"
import type { Reconciliation } from "./reconcile.js"

/** What the store holds under the order key an event names (see `WebhookProvider.orderKeyOf`). */
export interface StoredFulfilment {
  /** The fulfilment stored with the order, when one is stored under the event's order key. */
  readonly stored: Option.Option<Fulfilment>
}

/** A payment provider plugin: verifies a raw webhook and maps paying events to a fulfilment. */
export interface WebhookProvider {
  /** The `:provider` segment of `POST /webhooks/:provider`. */
  readonly name: string
  readonly verify: (request: WebhookRequest) => Effect.Effect<VerifiedEvent, SignatureError | MalformedPayload>
  /**
   * `None` for a verified event that needs no email (answered `ignored`). Given
   * `context` only when the provider has `orderKeyOf` and that answered a key.
   */
  readonly fulfilment: (
    event: VerifiedEvent,
    context?: StoredFulfilment
  ) => Effect.Effect<Option.Option<Fulfilment>, MalformedPayload>
  /**
   * For a provider whose fulfilment is expensive (it fetches what the payload
   * lacks, as Paddle's customer email): the order key an event would make, read
   * cheaply from the payload, or undefined (no lookup). `receive` then reads the
   * order stored under it and hands its fulfilment to `fulfilment`, which can
   * reuse what was fetched the first time instead of fetching again on a replay.
   */
  readonly orderKeyOf?: (event: VerifiedEvent) => string | undefined
  /**
   * Whether the provider's API can list what was paid (`reconcileWith(list)`), can
   * list it but not rebuild it (`reconcileDetectOnly(…)`: the owner is told), or why
   * not (`cannotReconcile(reason)`). Absent: the plugin says nothing, and
   * reconciliation skips it as it skips one that cannot.
   */
  readonly reconcile?: Reconciliation
}

/** The registry's operations. */
export interface ProvidersRegistry {
  /** The mounted provider of that name, or `UnknownProvider` (404). */
  readonly get: (name: string) => Effect.Effect<WebhookProvider, UnknownProvider>
  /** Mounts a provider, replacing one of the same name. */
  readonly register: (provider: WebhookProvider) => Effect.Effect<void>
  /** The names of the mounted providers. */
  readonly names: Effect.Effect<ReadonlyArray<string>>
}

/**
 * What `Providers.layer` mounts: a provider's layer (`Stripe.layerConfig()`,
 * `Creem.layer(options)`, `mountWhenSet(…)`), or a provider being made
 * (`Stripe.make(options)`, `TestProvider.make(options)` of `@hookgate/testing`).
 */
export type ProviderSource<E, R> = Layer.Layer<never, E, R> | Effect.Effect<WebhookProvider, E, R>

type SourceError<S> = S extends Layer.Layer<never, infer E, any> ? E : S extends Effect.Effect<any, infer E, any> ? E : never
type SourceContext<S> = S extends Layer.Layer<never, any, infer R> ? R : S extends Effect.Effect<any, any, infer R> ? R : never

/** The registry of mounted providers, looked up by name for each request. */
export class Providers extends Context.Tag("@hookgate/core/Providers")<Providers, ProvidersRegistry>() {
  /**
   * The registry with the given providers mounted, e.g.
   * `Providers.layer(Stripe.layerConfig(), Creem.layerConfig())`; no argument
   * mounts none (a Worker's queue consumer, say).
   */
  static layer<const Sources extends ReadonlyArray<ProviderSource<any, any>>>(
    ...sources: Sources
  ): Layer.Layer<Providers, SourceError<Sources[number]>, Exclude<SourceContext<Sources[number]>, Providers>> {
    // One layer step: the registry, then each source mounted on it in order, a layer
    // source built in the same memo map as the rest (Layer.provideMerge and mergeAll
    // would be memoized steps of their own, on a Worker's first request).
    return Layer.scopedContext(Effect.gen(function*() {
      const registry = yield* makeRegistry([])
      const context = Context.make(Providers, registry)
      for (const source of sources) {
        if (Layer.isLayer(source)) yield* Effect.provide(mountingOf(source) ?? buildInStep(source), context)
        else yield* registry.register(yield* (source as Effect.Effect<WebhookProvider, any, any>))
      }
      return context
    })) as Layer.Layer<Providers, any, any>
  }

  /**
   * The layer that adds a provider (or an effect building one, e.g. from
   * Config) to the registry in the environment: what a provider package's
   * `layer` and `layerConfig` return.
   */
  static register<E, R>(
    provider: Effect.Effect<WebhookProvider, E, R>
  ): Layer.Layer<never, E, Providers | R> {
    return Layer.effectDiscard(
      Effect.gen(function*() {
        const registry = yield* Providers
        yield* registry.register(yield* provider)
      })
    )
  }
}

const makeRegistry = (initial: ReadonlyArray<WebhookProvider>) =>
  Effect.map(
    Ref.make(new Map(initial.map((provider) => [provider.name, provider] as const))),
    (ref): ProvidersRegistry => ({
      get: (name) =>
        Effect.flatMap(Ref.get(ref), (map) => {
          const provider = map.get(name)
          return provider ? Effect.succeed(provider) : Effect.fail(new UnknownProvider({ provider: name }))
        }),
      register: (provider) => Ref.update(ref, (map) => new Map(map).set(provider.name, provider)),
      names: Effect.map(Ref.get(ref), (map) => Array.from(map.keys()))
    })
  )
