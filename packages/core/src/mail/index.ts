/**
 * @hookgate/core/mail: the `Mailer` port, the email it sends, the four classes
 * of mailer failure, the breaker that stops sending through a misconfigured mailer, the one send policy of orders and campaigns, the
 * idempotency keys every sender uses (fitted here, once), the check that a RetryPolicy's attempts fit the mailer's key window, and
 * the one timeout of a mailer's call (`boundedCall` for a promise, `boundedEffect` for an effect).
 */
export * from "./email.js"
export * from "./errors.js"
export * from "./mailer.js"
export {
  type CircuitState,
  type CircuitStatus,
  defaultProbeSchedule,
  type Held,
  MailerCircuit,
  type MailerCircuitOptions,
  type MailerCircuitShape
} from "./circuit.js"
export { type SendPolicy, sendWithPolicy } from "./send-policy.js"
export { boundedCall, type BoundedCallOptions, boundedEffect, type BoundedEffectOptions } from "./bounded-call.js"
export { attemptSpan, checkKeyWindow, KeyWindowExceeded, withKeyWindowCheck } from "./key-window.js"
export {
  alertIdempotencyKey,
  campaignBatchKey,
  campaignRecipientKey,
  isHeaderSafeKey,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  orderIdempotencyKey
} from "./idempotency-key.js"
