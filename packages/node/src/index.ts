/**
 * @hookgate/node: the runnable gateway for Node. Embed it with `gatewayServer`,
 * or run the `hookgate` command.
 */
export { DEV_SETTINGS, GatewayConfig } from "./config/gateway-config.js"
export { type GatewayOverrides, layerDelivery, layerGateway, layerMailer, layerProviders } from "./gateway-layer.js"
export { layerOutboxMailer, makeOutboxMailer } from "./mailer/outbox-mailer.js"
export { outboxFileName } from "./mailer/outbox-file-name.js"
export { layerDefaultRenderer } from "./renderer.js"
export { gatewayRouter, gatewayServer, serverUrl } from "./server.js"
export { campaignWatcher, layerCampaignWatcher, layerGatewayCampaigns } from "./campaigns/gateway-campaigns.js"
export { recipientsFromFile } from "./campaigns/recipients-file.js"
export { metricsRoute, PrometheusReader } from "./http/metrics.js"
export { hookgate as hookgateCommand } from "./cli/main.js"
export { OptionalPackagesMissing } from "./optional-packages.js"
