/**
 * @hookgate/node: the runnable gateway for Node. Embed it with `gatewayServer`,
 * or run the `hookgate` command.
 */
export { DEV_SETTINGS, GatewayConfig } from "./config/gateway-config.js"
/** The gateway's layers: `Gateway.layer(config)`, `Gateway.layerDelivery`, `Gateway.layerCampaigns`, … */
export * as Gateway from "./Gateway.js"
export type { GatewayOverrides } from "./gateway-layer.js"
/** Each accepted email as an `.eml` file: `OutboxMailer.make(directory)`, `OutboxMailer.layer(directory)`. */
export * as OutboxMailer from "./mailer/OutboxMailer.js"
export { outboxFileName } from "./mailer/outbox-file-name.js"
export { gatewayRouter, gatewayServer, serverUrl } from "./server.js"
export { recipientsFromFile } from "./campaigns/recipients-file.js"
export { metricsRoute, PrometheusReader } from "./http/metrics.js"
export { hookgateCommand } from "./cli/main.js"
export { OptionalPackagesMissing } from "./optional-packages.js"
