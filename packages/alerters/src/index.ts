/**
 * @hookgate/alerters: tell the owner by email (through any Mailer) or by a JSON
 * POST (Slack-compatible). The log alerter is `Alerter.layerLog` in @hookgate/core.
 */
export * as EmailAlerter from "./email-alerter.js"
export * as WebhookAlerter from "./webhook-alerter.js"
export type { EmailAlerterOptions } from "./email-alerter.js"
export type { WebhookAlerterOptions } from "./webhook-alerter.js"
export { fanOut } from "./fan-out.js"
export { alertIdempotencyKey } from "./internal/key.js"
export { headline, plainText } from "./internal/format.js"
