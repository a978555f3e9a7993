import type * as HttpClient from "@effect/platform/HttpClient"
import { ProviderKit, Providers, type Secrets, secretsFrom, type SecretsInput, type WebhookProvider } from "@hookgate/core/providers"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"
import type * as Schedule from "effect/Schedule"
import { type ApiOptions, makeCustomerEmail, PRODUCTION_API, SANDBOX_API } from "./customers.js"
import { EventEnvelope } from "./events.js"
import { makeFulfilment, orderKeyOf } from "./fulfilment.js"
import { parseSignature, signedContent } from "./signature.js"

export { type ApiOptions, CustomerUnavailable, DEFAULT_RETRY, DEFAULT_TIMEOUT, PRODUCTION_API, SANDBOX_API } from "./customers.js"
export {
  EventEnvelope,
  MinorUnits,
  PAID_STATUSES,
  PaidTransaction,
  PaidTransactionWithCustomer,
  PAYING_EVENT_TYPES,
  TransactionStatus
} from "./events.js"
export { CUSTOMER_ID_KEY, makeFulfilment, orderKeyOf } from "./fulfilment.js"
export { parseSignature, type Signature, SIGNATURE_HEADER, signedContent } from "./signature.js"

/**
 * Paddle's own tolerance, as its SDKs enforce it and its docs ask of a manual
 * check: five seconds. hookgate counts it both ways (Paddle's SDK only the old side).
 */
export const DEFAULT_TOLERANCE: Duration.Duration = Duration.seconds(5)

/** The options of `make` and `layer`. */
export interface Options extends ApiOptions {
  /** The notification destination's secret keys (`pdl_ntfset_…`), newest first; two while one rotates. */
  readonly secrets: SecretsInput
  /** How far `ts` may lie from now, in the past or the future. Default 5 seconds. */
  readonly tolerance?: Duration.DurationInput
  /** The `:provider` path segment and order key prefix. Default `paddle`. */
  readonly name?: string
}

/**
 * The Paddle provider, each secret's key imported once. It checks the
 * `Paddle-Signature` header's `h1` HMACs over `${ts}:` and the raw body, then the
 * timestamp window, then reads `event_id` and `event_type`. Paying events fetch
 * the customer's email through the `HttpClient` in context, unless the order is
 * already stored (see `orderKeyOf`).
 */
export const make = (options: Options): Effect.Effect<WebhookProvider, never, HttpClient.HttpClient> =>
  Effect.flatMap(makeCustomerEmail(options), (customerEmail) =>
    ProviderKit.make({
      name: options.name ?? "paddle",
      secrets: options.secrets,
      parseSignature,
      signedContent,
      tolerance: options.tolerance ?? DEFAULT_TOLERANCE,
      envelope: EventEnvelope,
      fulfilment: makeFulfilment(customerEmail),
      orderKeyOf
    }))

/** The Paddle provider, for `Providers.layer(…)`; it needs an `HttpClient` (`FetchHttpClient.layer`). */
export const layer = (options: Options): Layer.Layer<never, never, Providers | HttpClient.HttpClient> =>
  Providers.register(make(options))

/** The settings `layerConfig` reads. */
export interface ConfigOptions {
  /** Default `PADDLE_WEBHOOK_SECRET` (a comma-separated list); or a Config of your own. */
  readonly secrets?: string | Config.Config<Secrets>
  /** Default `PaddleApiConfig`: `PADDLE_API_KEY`, `PADDLE_ENVIRONMENT`, `PADDLE_API_BASE_URL`. */
  readonly api?: Config.Config<{ readonly apiKey: Redacted.Redacted<string>; readonly baseUrl: string }>
  readonly tolerance?: Duration.DurationInput
  readonly timeout?: Duration.DurationInput
  readonly retry?: Schedule.Schedule<unknown, unknown>
  readonly name?: string
}

/**
 * Reads `PADDLE_API_KEY` (required, `Redacted`) and the API's base URL:
 * `PADDLE_API_BASE_URL` when set, else by `PADDLE_ENVIRONMENT` (`production`,
 * the default, is `https://api.paddle.com`; `sandbox` is `https://sandbox-api.paddle.com`).
 */
export const PaddleApiConfig = Config.all({
  apiKey: Config.redacted("PADDLE_API_KEY"),
  baseUrl: Config.option(Config.string("PADDLE_API_BASE_URL")).pipe(
    Config.zipWith(
      Config.literal("production", "sandbox")("PADDLE_ENVIRONMENT").pipe(Config.withDefault("production" as const)),
      (explicit, environment) =>
        explicit._tag === "Some" ? explicit.value : environment === "sandbox" ? SANDBOX_API : PRODUCTION_API
    )
  )
})

/** The Paddle provider with its secrets and API key read from Config as `Redacted` values, for `Providers.layer(…)`. */
export const layerConfig = (
  options: ConfigOptions = {}
): Layer.Layer<never, ConfigError.ConfigError, Providers | HttpClient.HttpClient> =>
  Providers.register(
    Effect.gen(function*() {
      const secrets = yield* secretsFrom(options.secrets ?? "PADDLE_WEBHOOK_SECRET")
      const api = yield* (options.api ?? PaddleApiConfig)
      return yield* make({
        secrets,
        apiKey: api.apiKey,
        baseUrl: api.baseUrl,
        ...(options.tolerance === undefined ? {} : { tolerance: options.tolerance }),
        ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
        ...(options.retry === undefined ? {} : { retry: options.retry }),
        ...(options.name === undefined ? {} : { name: options.name })
      })
    })
  )
