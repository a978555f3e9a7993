/**
 * @hookgate/provider-stripe: verifies Stripe webhooks (core's `Hmac`: Web Crypto or node:crypto; raw body,
 * several secrets, a two-sided timestamp window) and turns paid Checkout
 * Sessions into fulfilments keyed `stripe:<session id>`.
 *
 *     import { Stripe } from "@hookgate/provider-stripe"
 *     Providers.layer(Stripe.layerConfig())
 */
export * as Stripe from "./Stripe.js"
