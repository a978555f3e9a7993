/**
 * @hookgate/provider-polar: verifies Polar webhooks (Standard Webhooks, through
 * @hookgate/provider-standard's verifier, with Polar's raw secrets) and turns a
 * paid `order.paid` into a fulfilment keyed `polar:<order id>`.
 *
 *     import { Polar } from "@hookgate/provider-polar"
 *     Providers.layer(Polar.layerConfig())
 */
export * as Polar from "./Polar.js"
