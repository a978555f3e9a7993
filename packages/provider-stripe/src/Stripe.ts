import {
  type ConfigOptionsOf,
  DEFAULT_TOLERANCE as KIT_TOLERANCE,
  makeProvider,
  Providers,
  registerFromConfig,
  type SecretsInput,
  type WebhookProvider
} from "@hookgate/core/providers"
import type * as ConfigError from "effect/ConfigError"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import { EventEnvelope } from "./events.js"
import { fulfilment } from "./fulfilment.js"
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
}

/** The options of `layerConfig`: as `Options`, with `secrets` a config name (default `STRIPE_WEBHOOK_SECRET`) or a Config. */
export type ConfigOptions = ConfigOptionsOf<Options>

/**
 * The Stripe provider, each secret's key imported once. It checks the
 * `Stripe-Signature` header's `v1` HMACs over `${t}.` and the raw body, then the
 * timestamp window, then reads the event's `id` and `type`.
 */
export const make = (options: Options): Effect.Effect<WebhookProvider> =>
  makeProvider({ name: "stripe", ...options, parseSignature, signedContent, envelope: EventEnvelope, fulfilment })

/** The Stripe provider, for `Providers.layer(…)`. */
export const layer = (options: Options): Layer.Layer<never, never, Providers> => Providers.register(make(options))

/** The Stripe provider with its secrets read from Config as `Redacted` values, for `Providers.layer(…)`. */
export const layerConfig = (options: ConfigOptions = {}): Layer.Layer<never, ConfigError.ConfigError, Providers> =>
  registerFromConfig(make, options, "STRIPE_WEBHOOK_SECRET")
