import * as Duration from "effect/Duration"
import type { EmailMessageConstructor, SendEmailBinding } from "./binding.js"

/** How long one `send` may take. */
export const DEFAULT_TIMEOUT = Duration.seconds(10)
/** How long to wait after a quota error. */
export const DEFAULT_QUOTA_RETRY_AFTER = Duration.hours(1)

/** The header that carries the idempotency key, for tracing (the binding does not deduplicate). */
export const IDEMPOTENCY_HEADER = "X-Hookgate-Idempotency-Key"

interface CommonOptions {
  /** `env.EMAIL`: a `send_email` binding. */
  readonly binding: SendEmailBinding
  /** The mailer's name in receipts, errors and metrics (default `cloudflare-email`). */
  readonly name?: string
  /** One send (default 10 s); past it the send is `Unknown`. */
  readonly timeout?: Duration.DurationInput
  /** The least delay before retrying after `E_DAILY_LIMIT_EXCEEDED` (default 1 hour). */
  readonly quotaRetryAfter?: Duration.DurationInput
}

/** Email Sending: `binding.send({ from, to, subject, text, html, replyTo, headers })` → `{ messageId }`. */
export interface EmailSendingOptions extends CommonOptions {
  readonly form: "sending"
}

/** Email Routing: `binding.send(new EmailMessage(from, to, rawMime))`, to verified destinations. */
export interface EmailRoutingOptions extends CommonOptions {
  readonly form: "routing"
  /**
   * `EmailMessage` from `cloudflare:email`. When left out it is imported on first
   * use (`import("cloudflare:email")`), which works inside Workers only.
   */
  readonly EmailMessage?: EmailMessageConstructor
}

/** The binding in one of its two forms. */
export type CloudflareEmailOptions = EmailSendingOptions | EmailRoutingOptions
