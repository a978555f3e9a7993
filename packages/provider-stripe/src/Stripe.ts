import {
  cannotReconcile,
  type ConfigOptionsOf,
  DEFAULT_TOLERANCE as KIT_TOLERANCE,
  ProviderKit,
  Providers,
  type Reconciliation,
  registerWithApi,
  type SecretsInput,
  type WebhookProvider
} from "@hookgate/core/providers"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import { EventEnvelope } from "./events.js"
import { fulfilment } from "./fulfilment.js"
import { makeListing, PRODUCTION_API } from "./listing.js"
import { parseSignature, signedContent } from "./signature.js"

export {
  CheckoutSessionStatus,
  EventEnvelope,
  PAID_STATUSES,
  PaidCheckoutSession,
  PaidCheckoutSessionEvent,
  PAYING_EVENT_TYPES
} from "./events.js"
export { fulfilment } from "./fulfilment.js"
export { type ApiOptions, DEFAULT_RETRY, makeListing, PAGE_SIZE, PRODUCTION_API } from "./listing.js"
export { parseSignature, type Signature, SIGNATURE_HEADER, signedContent } from "./signature.js"

/** Stripe's own default timestamp tolerance: five minutes. */
export const DEFAULT_TOLERANCE: Duration.Duration = KIT_TOLERANCE

/** The options of `make` and `layer`. */
export interface Options {
  /** Endpoint signing secrets (`whsec_…`), newest first; list two while rolling one. */
  readonly secrets: SecretsInput
  /** How far a signed timestamp may lie from now, in the past or the future. Default 5 minutes. */
  readonly tolerance?: Duration.DurationInput
  /** The `:provider` path segment and order key prefix. Default `stripe`. */
  readonly name?: string
  /** How it reconciles: a listing (`makeListing(api)`), or none (the default: it says it has no API key). */
  readonly reconcile?: Reconciliation
}

/** The options of `layerConfig`: as `Options`, with `secrets` a config name (default `STRIPE_WEBHOOK_SECRET`) or a Config. */
export type ConfigOptions = ConfigOptionsOf<Options> & {
  /** The API key and base for reconciliation; default `StripeApiConfig` (`STRIPE_API_KEY`, `STRIPE_API_BASE`). */
  readonly api?: Config.Config<Option.Option<{ readonly apiKey: Redacted.Redacted<string>; readonly baseUrl: string }>>
}

/**
 * The reconciliation settings: `STRIPE_API_KEY` (optional, `Redacted`: a secret
 * key, or a restricted key with read access to Events) and `STRIPE_API_BASE`
 * (default `https://api.stripe.com`). None without a key.
 */
export const StripeApiConfig = Config.option(Config.redacted("STRIPE_API_KEY")).pipe(
  Config.zipWith(Config.string("STRIPE_API_BASE").pipe(Config.withDefault(PRODUCTION_API)), (key, baseUrl) =>
    Option.map(key, (apiKey) => ({ apiKey, baseUrl })))
)

const NO_KEY = cannotReconcile("no STRIPE_API_KEY is set: reconciliation needs a key that can read events")

/**
 * The Stripe provider, each secret's key imported once. It checks the
 * `Stripe-Signature` header's `v1` HMACs over `${t}.` and the raw body, then the
 * timestamp window, then reads the event's `id` and `type`.
 */
export const make = (options: Options): Effect.Effect<WebhookProvider> =>
  ProviderKit.make({
    name: "stripe",
    ...options,
    parseSignature,
    signedContent,
    envelope: EventEnvelope,
    fulfilment,
    reconcile: options.reconcile ?? NO_KEY
  })

/** The Stripe provider, for `Providers.layer(…)`. */
export const layer = (options: Options): Layer.Layer<never, never, Providers> => Providers.register(make(options))

/**
 * The Stripe provider with its secrets read from Config as `Redacted` values, for
 * `Providers.layer(…)`. With `STRIPE_API_KEY` set it reconciles through List
 * Events, on the `HttpClient` in context when there is one, else on fetch.
 */
export const layerConfig = (options: ConfigOptions = {}): Layer.Layer<never, ConfigError.ConfigError, Providers> =>
  registerWithApi({
    make,
    options,
    defaultSecrets: "STRIPE_WEBHOOK_SECRET",
    defaultName: "stripe",
    api: StripeApiConfig,
    listing: makeListing
  })
