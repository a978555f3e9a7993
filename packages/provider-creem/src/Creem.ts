import {
  cannotReconcile,
  type ConfigOptionsOf,
  ProviderKit,
  Providers,
  type Reconciliation,
  registerWithApi,
  type SecretsInput,
  type WebhookProvider
} from "@hookgate/core/providers"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import { EventEnvelope } from "./events.js"
import { fulfilment } from "./fulfilment.js"
import { makeListing } from "./listing.js"
import { parseSignature, signedContent } from "./signature.js"

export { CHECKOUT_COMPLETED, CheckoutCompletedEvent, CompletedCheckout, EventEnvelope, Metadata } from "./events.js"
export { fulfilment } from "./fulfilment.js"
export { parseSignature, type Signature, SIGNATURE_HEADER, signedContent } from "./signature.js"
export { type ApiOptions, defaultBase, makeListing, PAGE_SIZE, PRODUCTION_API, TEST_API, UNSENDABLE_REASON } from "./listing.js"

/** The options of `make` and `layer`. */
export interface Options {
  /** Webhook secrets exactly as the dashboard shows them (`whsec_…`), newest first. */
  readonly secrets: SecretsInput
  /** The `:provider` path segment and order key prefix. Default `creem`. */
  readonly name?: string
  /** How it reconciles: `makeListing(api)` (detect-only: the owner is told), or none (the default: no API key). */
  readonly reconcile?: Reconciliation
}

/** The options of `layerConfig`: as `Options`, with `secrets` a config name (default `CREEM_WEBHOOK_SECRET`) or a Config. */
export type ConfigOptions = ConfigOptionsOf<Options> & {
  /** The API key and base for reconciliation; default `CreemApiConfig` (`CREEM_API_KEY`, `CREEM_API_BASE`). */
  readonly api?: Config.Config<Option.Option<{ readonly apiKey: Redacted.Redacted<string>; readonly baseUrl: string | undefined }>>
}

/**
 * The reconciliation settings: `CREEM_API_KEY` (optional, `Redacted`) and
 * `CREEM_API_BASE` (default: the test API for a `creem_test_` key, else production).
 * None without a key.
 */
export const CreemApiConfig = Config.option(Config.redacted("CREEM_API_KEY")).pipe(
  Config.zipWith(Config.option(Config.string("CREEM_API_BASE")), (key, base) =>
    Option.map(key, (apiKey) => ({ apiKey, baseUrl: Option.getOrUndefined(base) })))
)

/**
 * The Creem provider, each secret's key imported once. It checks
 * `creem-signature` (hex HMAC-SHA256 of the raw body), then reads the event's
 * `id` and `eventType`.
 *
 * Creem signs no timestamp, so there is no replay window to enforce: a captured
 * request verifies forever. What makes a replay harmless is downstream: the
 * event receipt (provider, event id) and the order key `creem:<order id>`, under
 * which a second delivery is answered `duplicate` and sends nothing.
 */
export const make = (options: Options): Effect.Effect<WebhookProvider> =>
  ProviderKit.make({
    name: "creem",
    ...options,
    parseSignature,
    signedContent,
    envelope: EventEnvelope,
    fulfilment,
    reconcile: options.reconcile ?? CANNOT_RECONCILE
  })

/**
 * Without an API key Creem is not reconciled. With one (`makeListing`) it is
 * detect-only (see the README): from a transaction, its API gives the webhook's
 * order key, and the email, amount and currency, but not the checkout's metadata:
 * only `GET /v1/checkouts?checkout_id=` returns it, and nothing a transaction leads
 * to names the checkout. A pulled order would be emailed without the metadata the
 * merchant's template may read, so hookgate sends nothing and names the paid
 * orders it never received to the owner, once each.
 */
export const CANNOT_RECONCILE = cannotReconcile(
  "no CREEM_API_KEY is set: with one, paid orders no webhook brought are named to the owner (Creem's API cannot give their checkout metadata, so they are not sent)"
)

/** The Creem provider, for `Providers.layer(…)`. */
export const layer = (options: Options): Layer.Layer<never, never, Providers> => Providers.register(make(options))

/**
 * The Creem provider with its secrets read from Config as `Redacted` values, for
 * `Providers.layer(…)`. With `CREEM_API_KEY` set it reconciles detect-only through the
 * transactions search, on the `HttpClient` in context when there is one, else on fetch.
 */
export const layerConfig = (options: ConfigOptions = {}): Layer.Layer<never, ConfigError.ConfigError, Providers> =>
  registerWithApi({
    make,
    options,
    defaultSecrets: "CREEM_WEBHOOK_SECRET",
    defaultName: "creem",
    api: CreemApiConfig,
    listing: makeListing
  })
