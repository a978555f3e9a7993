import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import type * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { type ConfigOptionsOf } from "./kit.js"
import { Providers, type WebhookProvider } from "./providers.js"
import type { Reconciliation } from "./reconcile.js"
import { secretsFrom, type SecretsInput } from "./secrets.js"

/**
 * What a provider package's `layerConfig` returns when the provider reconciles through its
 * API: as `registerFromConfig`, and when `api` reads a key (`Option.some`), the listing made
 * from it, on the `HttpClient` in context when there is one, else on fetch.
 */
export const registerWithApi = <
  O extends { readonly secrets: SecretsInput; readonly name?: string; readonly reconcile?: Reconciliation },
  K extends object
>(spec: {
  readonly make: (options: O) => Effect.Effect<WebhookProvider>
  readonly options: ConfigOptionsOf<O> & { readonly api?: Config.Config<Option.Option<K>> | undefined }
  readonly defaultSecrets: string
  readonly defaultName: string
  readonly api: Config.Config<Option.Option<K>>
  readonly listing: (key: K & { readonly name: string }) => Effect.Effect<Reconciliation, never, HttpClient.HttpClient>
}): Layer.Layer<never, ConfigError.ConfigError, Providers> =>
  Providers.register(
    Effect.gen(function*() {
      const { api, secrets: secretsOption, ...rest } = spec.options
      const secrets = yield* secretsFrom(secretsOption ?? spec.defaultSecrets)
      const key = yield* (api ?? spec.api)
      const name = rest.name ?? spec.defaultName
      const reconcile = Option.isNone(key) ? undefined : yield* Effect.flatMap(
        Effect.serviceOption(HttpClient.HttpClient),
        Option.match({
          onNone: () => Effect.provide(spec.listing({ ...key.value, name }), FetchHttpClient.layer),
          onSome: (http) => Effect.provideService(spec.listing({ ...key.value, name }), HttpClient.HttpClient, http)
        })
      )
      return yield* spec.make({ ...rest, secrets, ...(reconcile === undefined ? {} : { reconcile }) } as unknown as O)
    })
  )
