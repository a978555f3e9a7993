/**
 * @hookgate/mailer-resend: hookgate's `Mailer` on Resend's REST API, with
 * idempotency keys, batch sends and error classification.
 */
export { layer, layerConfig, make, MAX_BATCH_SIZE } from "./mailer.js"
export {
  DEFAULT_BASE_URL,
  DEFAULT_QUOTA_RETRY_AFTER,
  DEFAULT_TIMEOUT,
  DEFAULT_USER_AGENT,
  ResendConfig,
  type ResendOptions
} from "./options.js"
export { classifyAnswer, classifyTransport, type ErrorAnswer } from "./internal/classify.js"
