/**
 * @hookgate/alerters: tell the owner by email (through any Mailer) or by a JSON
 * POST (Slack-compatible). One namespace per alerter, `EmailAlerter` and
 * `WebhookAlerter` (each with `make`, `layer(options)`, `layerConfig(config?)`),
 * and `fanOut` to use several. The log alerter is `Alerter.layerLog()` in
 * @hookgate/core/alerts.
 */
export * as EmailAlerter from "./EmailAlerter.js"
export * as WebhookAlerter from "./WebhookAlerter.js"
export { fanOut } from "./fan-out.js"
