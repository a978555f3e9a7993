/**
 * @hookgate/mailer-cf-email: hookgate's `Mailer` on a Cloudflare Workers
 * `send_email` binding, in its Email Sending and Email Routing forms.
 */
export { layer, make } from "./mailer.js"
export {
  type CloudflareEmailOptions,
  DEFAULT_QUOTA_RETRY_AFTER,
  DEFAULT_TIMEOUT,
  type EmailRoutingOptions,
  type EmailSendingOptions,
  IDEMPOTENCY_HEADER
} from "./options.js"
export type {
  BindingError,
  EmailMessageConstructor,
  EmailMessageLike,
  EmailSendingMessage,
  SendEmailBinding
} from "./binding.js"
export { classifyThrown } from "./internal/classify.js"
export { buildMime } from "./internal/mime.js"
