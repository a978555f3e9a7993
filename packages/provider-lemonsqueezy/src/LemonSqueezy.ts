import {
  type ConfigOptionsOf,
  ProviderKit,
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

export { CustomData, EventEnvelope, ORDER_CREATED, OrderCreatedEvent, OrderStatus, PAID_STATUS, PaidOrder } from "./events.js"
export { fulfilment } from "./fulfilment.js"
export { parseSignature, type Signature, SIGNATURE_HEADER, signedContent } from "./signature.js"

/** The options of `make` and `layer`. */
export interface Options {
  /** The webhook's signing secrets, exactly as entered in Lemon Squeezy, newest first. */
  readonly secrets: SecretsInput
  /** The `:provider` path segment and order key prefix. Default `lemonsqueezy`. */
  readonly name?: string
}

/** The options of `layerConfig`: as `Options`, with `secrets` a config name (default `LEMONSQUEEZY_WEBHOOK_SECRET`) or a Config. */
export type ConfigOptions = ConfigOptionsOf<Options>

/**
 * The Lemon Squeezy provider, each secret's key imported once. It checks
 * `X-Signature` (hex HMAC-SHA256 of the raw body under the signing secret),
 * then reads `meta.event_name` and the resource's type and id.
 *
 * Lemon Squeezy signs no timestamp, so a captured request verifies forever:
 * the receipt and the order key `lemonsqueezy:<order id>` make a replay a
 * `duplicate` that sends nothing.
 */
export const make = (options: Options): Effect.Effect<WebhookProvider> =>
  ProviderKit.make({ name: "lemonsqueezy", ...options, parseSignature, signedContent, envelope: EventEnvelope, fulfilment })

/** The Lemon Squeezy provider, for `Providers.layer(…)`. */
export const layer = (options: Options): Layer.Layer<never, never, Providers> => Providers.register(make(options))

/** The Lemon Squeezy provider with its secrets read from Config as `Redacted` values, for `Providers.layer(…)`. */
export const layerConfig = (options: ConfigOptions = {}): Layer.Layer<never, ConfigError.ConfigError, Providers> =>
  registerFromConfig(make, options, "LEMONSQUEEZY_WEBHOOK_SECRET")
