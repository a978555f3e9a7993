/**
 * @hookgate/provider-creem: verifies Creem webhooks (Web Crypto, raw body,
 * several secrets) and turns `checkout.completed` into fulfilments keyed
 * `creem:<order id>`.
 */
export * as CreemProvider from "./provider.js"
export { type CreemConfigOptions, type CreemOptions, layer, layerConfig, make } from "./provider.js"
export { CHECKOUT_COMPLETED, CheckoutCompletedEvent, CompletedCheckout, CreemEventEnvelope, CreemMetadata } from "./events.js"
export { creemFulfilment } from "./fulfilment.js"
export { CREEM_SIGNATURE_HEADER, parseCreemSignature } from "./signature.js"
export { type Secrets, secretsConfig, type SecretsInput } from "@hookgate/core/providers"
