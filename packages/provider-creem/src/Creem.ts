import {
  cannotReconcile,
  type ConfigOptionsOf,
  makeProvider,
  Providers,
  registerFromConfig,
  type SecretsInput,
  type WebhookProvider
} from "@hookgate/core/providers"
import type * as ConfigError from "effect/ConfigError"
import type * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import { EventEnvelope } from "./events.js"
import { fulfilment } from "./fulfilment.js"
import { parseSignature, signedContent } from "./signature.js"

export { CHECKOUT_COMPLETED, CheckoutCompletedEvent, CompletedCheckout, EventEnvelope, Metadata } from "./events.js"
export { fulfilment } from "./fulfilment.js"
export { parseSignature, type Signature, SIGNATURE_HEADER, signedContent } from "./signature.js"

/** The options of `make` and `layer`. */
export interface Options {
  /** Webhook secrets exactly as the dashboard shows them (`whsec_…`), newest first. */
  readonly secrets: SecretsInput
  /** The `:provider` path segment and order key prefix. Default `creem`. */
  readonly name?: string
}

/** The options of `layerConfig`: as `Options`, with `secrets` a config name (default `CREEM_WEBHOOK_SECRET`) or a Config. */
export type ConfigOptions = ConfigOptionsOf<Options>

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
  makeProvider({ name: "creem", ...options, parseSignature, signedContent, envelope: EventEnvelope, fulfilment, reconcile: CANNOT_RECONCILE })

/**
 * Why Creem does not reconcile (see the README): from a transaction, its API gives
 * the webhook's order key, email, product, amount and currency (through the
 * customer and their orders), but not the checkout's metadata: only
 * `GET /v1/checkouts?checkout_id=` returns it, and nothing a transaction leads to
 * names the checkout. A pulled order would be emailed without the metadata the
 * merchant's template may read, and the late webhook could not repair it.
 */
export const CANNOT_RECONCILE = cannotReconcile(
  "Creem's API does not lead from a transaction to its checkout: the webhook's metadata cannot be rebuilt from it"
)

/** The Creem provider, for `Providers.layer(…)`. */
export const layer = (options: Options): Layer.Layer<never, never, Providers> => Providers.register(make(options))

/** The Creem provider with its secrets read from Config as `Redacted` values, for `Providers.layer(…)`. */
export const layerConfig = (options: ConfigOptions = {}): Layer.Layer<never, ConfigError.ConfigError, Providers> =>
  registerFromConfig(make, options, "CREEM_WEBHOOK_SECRET")
