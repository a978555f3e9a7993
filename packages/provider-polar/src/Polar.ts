import { type ConfigOptionsOf, Providers, registerFromConfig, type SecretsInput, type WebhookProvider } from "@hookgate/core/providers"
import { StandardWebhooks } from "@hookgate/provider-standard"
import type * as ConfigError from "effect/ConfigError"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import { fulfilment } from "./fulfilment.js"

export { Metadata, ORDER_PAID, OrderPaidEvent, OrderStatus, PaidOrder } from "./events.js"
export { fulfilment } from "./fulfilment.js"

/** Standard Webhooks' tolerance, and `@polar-sh/sdk`'s: five minutes, either way. */
export const DEFAULT_TOLERANCE: Duration.Duration = StandardWebhooks.DEFAULT_TOLERANCE

/** The options of `make` and `layer`. */
export interface Options {
  /** Webhook secrets exactly as Polar shows them (used as their UTF-8 bytes, as Polar's SDK does), newest first. */
  readonly secrets: SecretsInput
  /** How far `webhook-timestamp` may lie from now, in the past or the future. Default 5 minutes. */
  readonly tolerance?: Duration.DurationInput
  /** The `:provider` path segment and order key prefix. Default `polar`. */
  readonly name?: string
}

/** The options of `layerConfig`: as `Options`, with `secrets` a config name (default `POLAR_WEBHOOK_SECRET`) or a Config. */
export type ConfigOptions = ConfigOptionsOf<Options>

/**
 * The Polar provider: provider-standard's Standard Webhooks verifier (`v1`
 * signatures over `${webhook-id}.${webhook-timestamp}.` and the raw body, the
 * timestamp window, the event `type`) with Polar's secrets taken as they are,
 * and Polar's `order.paid` as the paying event. The event id is `webhook-id`.
 */
export const make = (options: Options): Effect.Effect<WebhookProvider> =>
  StandardWebhooks.make({
    name: options.name ?? "polar",
    secrets: options.secrets,
    secretFormat: "raw",
    ...(options.tolerance === undefined ? {} : { tolerance: options.tolerance }),
    fulfilment
  })

/** The Polar provider, for `Providers.layer(…)`. */
export const layer = (options: Options): Layer.Layer<never, never, Providers> => Providers.register(make(options))

/** The Polar provider with its secrets read from Config as `Redacted` values, for `Providers.layer(…)`. */
export const layerConfig = (options: ConfigOptions = {}): Layer.Layer<never, ConfigError.ConfigError, Providers> =>
  registerFromConfig(make, options, "POLAR_WEBHOOK_SECRET")
