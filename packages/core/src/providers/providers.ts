import { Context, Effect, Layer, type Option, Ref } from "effect"
import type { VerifiedEvent, WebhookRequest } from "./webhook.js"
import type { Fulfilment } from "../orders/fulfilment.js"
import { type MalformedPayload, type SignatureError, UnknownProvider } from "./errors.js"

/** A payment provider plugin: verifies a raw webhook and maps paying events to a fulfilment. */
export interface WebhookProvider {
  /** The `:provider` segment of `POST /webhooks/:provider`. */
  readonly name: string
  readonly verify: (request: WebhookRequest) => Effect.Effect<VerifiedEvent, SignatureError | MalformedPayload>
  /** `None` for a verified event that needs no email (answered `ignored`). */
  readonly fulfilment: (event: VerifiedEvent) => Effect.Effect<Option.Option<Fulfilment>, MalformedPayload>
}

export interface ProvidersRegistry {
  readonly get: (name: string) => Effect.Effect<WebhookProvider, UnknownProvider>
  readonly register: (provider: WebhookProvider) => Effect.Effect<void>
  readonly names: Effect.Effect<ReadonlyArray<string>>
}

/** The registry of mounted providers, looked up by name for each request. */
export class Providers extends Context.Tag("@hookgate/core/Providers")<Providers, ProvidersRegistry>() {
  /** A registry seeded with the given providers; more may be added with `Providers.register`. */
  static layer(...providers: ReadonlyArray<WebhookProvider>): Layer.Layer<Providers> {
    return Layer.effect(Providers, makeRegistry(providers))
  }

  /**
   * Adds a provider (or an effect building one, e.g. from Config) to the registry.
   * Provider packages build their `layer` and `layerConfig` with this.
   */
  static register<E, R>(
    provider: WebhookProvider | Effect.Effect<WebhookProvider, E, R>
  ): Layer.Layer<never, E, Providers | R> {
    return Layer.effectDiscard(
      Effect.gen(function*() {
        const registry = yield* Providers
        const built = Effect.isEffect(provider) ? yield* provider : provider
        yield* registry.register(built)
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
