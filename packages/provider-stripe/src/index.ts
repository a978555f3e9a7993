/**
 * @hookgate/provider-stripe: verifies Stripe webhooks (Web Crypto, raw body,
 * several secrets, a two-sided timestamp window) and turns paid Checkout
 * Sessions into fulfilments keyed `stripe:<session id>`.
 */
export * as StripeProvider from "./provider.js"
export {
  DEFAULT_TOLERANCE,
  layer,
  layerConfig,
  make,
  type StripeConfigOptions,
  type StripeOptions
} from "./provider.js"
export {
  CheckoutSessionStatus,
  PAID_STATUSES,
  PaidCheckoutSession,
  PaidCheckoutSessionEvent,
  PAYING_EVENT_TYPES,
  StripeEventEnvelope
} from "./events.js"
export { stripeFulfilment } from "./fulfilment.js"
export { parseStripeSignature, STRIPE_SIGNATURE_HEADER, type StripeSignature } from "./signature.js"
export { type Secrets, secretsConfig, type SecretsInput } from "@hookgate/core/providers"
