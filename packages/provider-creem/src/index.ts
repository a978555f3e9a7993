/**
 * @hookgate/provider-creem: verifies Creem webhooks (Web Crypto, raw body,
 * several secrets) and turns `checkout.completed` into fulfilments keyed
 * `creem:<order id>`.
 *
 *     import { Creem } from "@hookgate/provider-creem"
 *     Providers.layer(Creem.layerConfig())
 */
export * as Creem from "./Creem.js"
