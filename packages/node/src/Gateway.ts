/**
 * The gateway's layers, from its validated settings (`GatewayConfig`):
 * `Gateway.layer(config)` is the whole gateway; `layerProviders`, `layerDelivery`
 * and `layerMailer` its parts; `layerCampaigns` and `layerCampaignWatcher` the
 * campaigns of `hookgate serve`; `layerDefaultRenderer(from)` its default email.
 */
import { Campaigns } from "@hookgate/core/campaigns"
import { NodeHmac } from "@hookgate/core/node"
import { Layer } from "effect"
import type { GatewayConfig } from "./config/gateway-config.js"
import { type GatewayOverrides, layerDelivery, layerProviders } from "./gateway-layer.js"

export { layerDelivery, layerMailer, layerProviders } from "./gateway-layer.js"
export { campaignWatcher, layerCampaignWatcher } from "./campaigns/gateway-campaigns.js"
export { layerDefaultRenderer } from "./renderer.js"

/** The whole gateway: providers and delivery, hashing on node:crypto too (the fulfilment hash). */
export const layer = (config: GatewayConfig, overrides: GatewayOverrides = {}) =>
  Layer.mergeAll(layerProviders(config), layerDelivery(config, overrides), NodeHmac.layer())

/**
 * The gateway's campaigns: `Campaigns` on the in-process queue, its consumers
 * running in the server process (a batch at a time per consumer, two consumers).
 * A batch held because the mailer is misconfigured is acknowledged: the watcher
 * dispatches it again once the breaker lets a probe through, so a long outage
 * leaves no dead letters.
 */
export const layerCampaigns = Campaigns.layerInProcess({ name: "hookgate-campaigns", concurrency: 2, ackHeld: true })
