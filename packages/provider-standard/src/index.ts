/**
 * @hookgate/provider-standard: verifies Standard Webhooks (Polar, Svix-sent
 * and Resend's own webhooks; `webhook-*` or `svix-*` headers) through core's `Hmac` (Web Crypto or node:crypto),
 * with the mapping from payload to fulfilment supplied by the user
 * (`fulfilOn` from `@hookgate/core/providers`).
 *
 *     import { StandardWebhooks } from "@hookgate/provider-standard"
 *     Providers.layer(StandardWebhooks.layerConfig({ name: "polar", secrets: "POLAR_WEBHOOK_SECRET", fulfilment }))
 */
export * as StandardWebhooks from "./StandardWebhooks.js"
