/**
 * @hookgate/mailer-postmark: hookgate's `Mailer` on Postmark's Email API, with
 * batch sends and Postmark's `ErrorCode`s classified. One namespace:
 * `Postmark.layerConfig()`, `Postmark.layer(options)`, `Postmark.make(options)`.
 */
export * as Postmark from "./Postmark.js"
