/**
 * @hookgate/mailer-resend: hookgate's `Mailer` on Resend's REST API, with
 * idempotency keys, batch sends and error classification. One namespace:
 * `Resend.layerConfig()`, `Resend.layer(options)`, `Resend.make(options)`.
 */
export * as Resend from "./Resend.js"
