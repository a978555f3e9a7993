import { type MailerError, Misconfigured, Rejected, Transient, Unknown } from "@hookgate/core/mail"
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import type { ResendErrorBody } from "./schemas.js"

/** A non-2xx answer from Resend, as far as it could be read. */
export interface ErrorAnswer {
  readonly status: number
  readonly body: Option.Option<ResendErrorBody>
  /** The raw body, for answers that are not Resend's JSON (a proxy's HTML, Cloudflare's "error code: 1010"). */
  readonly text: string
  readonly retryAfter: Option.Option<Duration.Duration>
}

export interface ClassifyOptions {
  readonly mailer: string
  /** The least delay after a daily or monthly quota error. */
  readonly quotaRetryAfter: Duration.Duration
}

/** Answers about the account or the settings, whatever the email: no send can succeed until they are fixed. */
const ACCOUNT_STATUSES = new Set([401, 403, 404])

const QUOTA_ERRORS = new Set(["daily_quota_exceeded", "monthly_quota_exceeded"])

/** When the first request under a key is still in flight, try again after about this long. */
const CONCURRENT_RETRY_AFTER = Duration.seconds(1)

const describe = (answer: ErrorAnswer) =>
  Option.match(answer.body, {
    onSome: (body) => `${answer.status} ${body.name}: ${body.message}`,
    onNone: () => {
      const text = answer.text.trim().replace(/\s+/g, " ")
      return text === "" ? `${answer.status}` : `${answer.status}: ${text.slice(0, 200)}`
    }
  })

const withRetryAfter = (retryAfter: Option.Option<Duration.Duration>) =>
  Option.match(retryAfter, { onNone: () => ({}), onSome: (duration) => ({ retryAfter: duration }) })

/**
 * Resend's status and error `name` into the core's four classes:
 * - 429 and 5xx: `Transient`, honouring `retry-after`;
 * - daily or monthly quota: `Transient`, at least `quotaRetryAfter`, and the owner is alerted;
 * - 409 `concurrent_idempotent_requests`: `Transient` (the first request under the key is still running);
 * - 401 (`missing_api_key`, `restricted_api_key`), 403 (`invalid_api_key`, a `validation_error`
 *   for an unverified domain or a test-only account) and 404 (a wrong base URL: `/emails` always
 *   exists): `Misconfigured`, the account's fault, not the order's;
 * - 409 `invalid_idempotent_request`: `Rejected` with `keyAlreadyUsed` (an earlier request under the
 *   key was accepted; an order whose earlier attempt was uncertain is then recorded sent);
 * - every other 4xx: `Rejected`, with Resend's message;
 * - anything else (1xx, 3xx): `Unknown`.
 */
export const classifyAnswer = (answer: ErrorAnswer, options: ClassifyOptions): MailerError => {
  const mailer = options.mailer
  const detail = describe(answer)
  const name = Option.getOrUndefined(Option.map(answer.body, (body) => body.name))
  if (name !== undefined && QUOTA_ERRORS.has(name)) {
    const asked = Option.getOrElse(answer.retryAfter, () => Duration.zero)
    return new Transient({ mailer, detail, retryAfter: Duration.max(asked, options.quotaRetryAfter), alert: true })
  }
  if (answer.status === 429 || answer.status >= 500) {
    return new Transient({ mailer, detail, ...withRetryAfter(answer.retryAfter) })
  }
  if (answer.status === 409 && name === "concurrent_idempotent_requests") {
    return new Transient({
      mailer,
      detail,
      retryAfter: Option.getOrElse(answer.retryAfter, () => CONCURRENT_RETRY_AFTER)
    })
  }
  if (ACCOUNT_STATUSES.has(answer.status)) {
    return new Misconfigured({ mailer, detail, code: name ?? `http_${answer.status}` })
  }
  if (answer.status === 409 && name === "invalid_idempotent_request") {
    return new Rejected({ mailer, detail, code: name, keyAlreadyUsed: true })
  }
  if (answer.status >= 400) {
    return new Rejected({ mailer, detail, code: name ?? `http_${answer.status}` })
  }
  return new Unknown({ mailer, detail: `unexpected answer ${detail}` })
}

/**
 * Error codes that mean no connection was made, so nothing was written and a
 * retry cannot duplicate. Every other transport failure may have happened after
 * the request reached Resend (a reset, a dropped socket), so it is `Unknown`.
 */
const NOTHING_WRITTEN = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT"
])

const causes = (error: unknown): ReadonlyArray<{ readonly code?: unknown; readonly message?: unknown }> => {
  const chain: Array<{ code?: unknown; message?: unknown }> = []
  let current: unknown = error
  for (let depth = 0; depth < 8 && typeof current === "object" && current !== null; depth++) {
    chain.push(current as { code?: unknown; message?: unknown })
    current = (current as { cause?: unknown }).cause
  }
  return chain
}

/** A failed fetch (no HTTP answer) into `Transient` when nothing was written, else `Unknown`. */
export const classifyTransport = (cause: unknown, mailer: string): MailerError => {
  const chain = causes(cause)
  const code = chain.map((c) => c.code).find((c): c is string => typeof c === "string" && NOTHING_WRITTEN.has(c))
  if (code !== undefined) return new Transient({ mailer, detail: `could not connect to Resend (${code})` })
  const innermost = chain.at(-1)
  const reason = typeof innermost?.message === "string" ? innermost.message : "transport failure"
  return new Unknown({ mailer, detail: `connection failed after the request may have reached Resend: ${reason}` })
}
