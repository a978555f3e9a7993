/**
 * @hookgate/core/mail: the `Mailer` port, the email it sends, the three classes
 * of mailer failure, the one send policy of orders and campaigns, and the
 * idempotency keys every sender uses (fitted here, once).
 */
export * from "./email.js"
export * from "./errors.js"
export * from "./mailer.js"
export { type SendPolicy, sendWithPolicy } from "./send-policy.js"
export {
  alertIdempotencyKey,
  campaignBatchKey,
  campaignRecipientKey,
  isHeaderSafeKey,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  orderIdempotencyKey,
  sha256Hex
} from "./idempotency-key.js"
