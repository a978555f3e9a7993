/**
 * @hookgate/provider-lemonsqueezy: verifies Lemon Squeezy webhooks (`X-Signature`,
 * hex HMAC-SHA256 of the raw body; core's `Hmac`, several secrets) and turns a
 * paid `order_created` into a fulfilment keyed `lemonsqueezy:<order id>`.
 *
 *     import { LemonSqueezy } from "@hookgate/provider-lemonsqueezy"
 *     Providers.layer(LemonSqueezy.layerConfig())
 */
export * as LemonSqueezy from "./LemonSqueezy.js"
