/**
 * @hookgate/provider-standard: verifies Standard Webhooks (Polar, Svix-sent
 * and Resend's own webhooks; `webhook-*` or `svix-*` headers) on Web Crypto,
 * with the mapping from payload to fulfilment supplied by the user.
 */
export * as StandardWebhooksProvider from "./provider.js"
export {
  DEFAULT_TOLERANCE,
  layer,
  layerConfig,
  make,
  type StandardWebhooksConfigOptions,
  type StandardWebhooksOptions
} from "./provider.js"
export { fulfilOn, type FulfilOnOptions, type FulfilmentFields } from "./fulfil-on.js"
export { HEADER_PREFIXES, parseStandardSignature, type StandardSignature } from "./signature.js"
export { type Secrets, secretsConfig, type SecretsInput } from "@hookgate/core/providers"
export type { SecretFormat } from "./secret-format.js"
