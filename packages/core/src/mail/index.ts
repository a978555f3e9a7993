/**
 * @hookgate/core/mail: the `Mailer` port, the email it sends, the three classes
 * of mailer failure, and the idempotency keys every sender uses.
 */
export * from "./email.js"
export * from "./errors.js"
export * from "./mailer.js"
export { orderIdempotencyKey } from "./idempotency-key.js"
