import { type MailerError, Misconfigured, Rejected, Transient, Unknown } from "@hookgate/core/mail"
import type * as Duration from "effect/Duration"

export interface ClassifyOptions {
  readonly mailer: string
  /** The least delay after `E_DAILY_LIMIT_EXCEEDED`. */
  readonly quotaRetryAfter: Duration.Duration
}

/**
 * Codes about the account, not the email: the sending domain is not verified
 * (or its sender not allowed). No order can be sent until the owner fixes it.
 */
const MISCONFIGURED = new Set(["E_SENDER_NOT_VERIFIED"])

/** Codes that say this email will never be accepted as it is. */
const REJECTED = new Set([
  "E_RECIPIENT_NOT_ALLOWED",
  "E_RECIPIENT_SUPPRESSED",
  "E_VALIDATION_ERROR",
  "E_HEADER_NOT_ALLOWED",
  "E_HEADER_USE_API_FIELD",
  "E_CONTENT_TOO_LARGE"
])

/**
 * Errors thrown without a code, matched by message: the checks the local
 * runtime (Miniflare's `send_email`) makes before accepting, which mirror the
 * production binding's. The inferred code is the Email Sending one that means the same.
 */
const REJECTED_MESSAGES: ReadonlyArray<readonly [RegExp, string]> = [
  [/^email to .+ not allowed$/, "E_RECIPIENT_NOT_ALLOWED"],
  [/^email from .+ not allowed$/, "E_SENDER_NOT_VERIFIED"],
  [/^(invalid message-id|invalid headers set|From: header does not match mail from|could not parse email)/, "E_VALIDATION_ERROR"]
]

const messageOf = (error: unknown) =>
  typeof error === "object" && error !== null && typeof (error as { message?: unknown }).message === "string"
    ? (error as { message: string }).message
    : String(error)

const codeOf = (error: unknown) =>
  typeof error === "object" && error !== null && typeof (error as { code?: unknown }).code === "string"
    ? (error as { code: string }).code
    : undefined

/**
 * What the binding threw, once the call began:
 * - `E_RATE_LIMIT_EXCEEDED`: `Transient`;
 * - `E_DAILY_LIMIT_EXCEEDED`: `Transient`, at least `quotaRetryAfter`, and the owner is alerted;
 * - `E_SENDER_NOT_VERIFIED` (and the runtime's "email from … not allowed"): `Misconfigured`;
 * - the permanent codes (recipient, suppression, validation, headers, size): `Rejected`;
 * - anything else (`E_DELIVERY_FAILED`, `E_INTERNAL_SERVER_ERROR`, an unknown error): `Unknown`,
 *   since the email may have been accepted before the failure.
 */
export const classifyThrown = (error: unknown, options: ClassifyOptions): MailerError => {
  const mailer = options.mailer
  const message = messageOf(error)
  const code = codeOf(error)
  const detail = code === undefined ? message : `${code}: ${message}`
  if (code === "E_RATE_LIMIT_EXCEEDED") return new Transient({ mailer, detail })
  if (code === "E_DAILY_LIMIT_EXCEEDED") {
    return new Transient({ mailer, detail, retryAfter: options.quotaRetryAfter, alert: true })
  }
  if (code !== undefined && MISCONFIGURED.has(code)) return new Misconfigured({ mailer, detail, code })
  if (code !== undefined && REJECTED.has(code)) return new Rejected({ mailer, detail, code })
  if (code === undefined) {
    const known = REJECTED_MESSAGES.find(([pattern]) => pattern.test(message))
    if (known !== undefined) {
      return MISCONFIGURED.has(known[1])
        ? new Misconfigured({ mailer, detail, code: known[1] })
        : new Rejected({ mailer, detail, code: known[1] })
    }
  }
  return new Unknown({ mailer, detail })
}
