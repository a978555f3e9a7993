import { type MailerError, Misconfigured, Rejected, Transient, Unknown } from "@hookgate/core/mail"
import * as Option from "effect/Option"
import type { PostmarkErrorBody } from "./schemas.js"

/** A non-2xx answer from Postmark, as far as it could be read. */
export interface ErrorAnswer {
  readonly status: number
  readonly body: Option.Option<PostmarkErrorBody>
  /** The raw body, for answers that are not Postmark's JSON (a proxy's page). */
  readonly text: string
}

/**
 * `ErrorCode`s about the account or the settings, whatever the email: no send can
 * succeed until the owner fixes them. 10 bad or missing token; 400 sender signature
 * not found; 401 sender signature not confirmed; 405 not allowed to send (out of
 * credits); 412 account pending; 413 account may not send.
 */
const ACCOUNT_CODES = new Set([10, 400, 401, 405, 412, 413])

/** `ErrorCode`s that pass: 100 maintenance, 429 rate limit exceeded. */
const TRANSIENT_CODES = new Set([100, 429])

/**
 * One Postmark `ErrorCode` (a whole answer's, or one message's in a batch) into the core's classes:
 * account codes → `Misconfigured` (orders held, owner alerted), 100 and 429 → `Transient`,
 * every other code (300 invalid email request, 406 inactive recipient, 402/403/409 JSON,
 * 410 too many batch messages, 411 attachment type) → `Rejected` with code `postmark_<n>`.
 */
export const classifyErrorCode = (errorCode: number, detail: string, mailer: string): MailerError => {
  const code = `postmark_${errorCode}`
  if (ACCOUNT_CODES.has(errorCode)) return new Misconfigured({ mailer, detail, code })
  if (TRANSIENT_CODES.has(errorCode)) return new Transient({ mailer, detail })
  return new Rejected({ mailer, detail, code })
}

const describe = (answer: ErrorAnswer) =>
  Option.match(answer.body, {
    onSome: (body) => `${answer.status} ErrorCode ${body.ErrorCode}: ${body.Message}`,
    onNone: () => {
      const text = answer.text.trim().replace(/\s+/g, " ")
      return text === "" ? `${answer.status}` : `${answer.status}: ${text.slice(0, 200)}`
    }
  })

/**
 * Postmark's status and `ErrorCode` into the core's four classes:
 * - 401 (a missing or wrong token; `ErrorCode` 10): `Misconfigured`;
 * - 404 (a wrong base URL: `/email` always exists): `Misconfigured`, code `http_404`;
 * - 429 and 5xx: `Transient` (Postmark names no `Retry-After`; the durable backoff paces the retry);
 * - 422 with an `ErrorCode`: `classifyErrorCode`;
 * - every other 4xx (413 payload too large): `Rejected`;
 * - anything else (1xx, 3xx): `Unknown`.
 */
export const classifyAnswer = (answer: ErrorAnswer, mailer: string): MailerError => {
  const detail = describe(answer)
  const errorCode = Option.getOrUndefined(Option.map(answer.body, (body) => body.ErrorCode))
  if (answer.status === 401) return new Misconfigured({ mailer, detail, code: `postmark_${errorCode ?? 10}` })
  if (answer.status === 404) return new Misconfigured({ mailer, detail, code: "http_404" })
  if (answer.status === 429 || answer.status >= 500) return new Transient({ mailer, detail })
  if (errorCode !== undefined && errorCode !== 0 && answer.status >= 400) return classifyErrorCode(errorCode, detail, mailer)
  if (answer.status >= 400) return new Rejected({ mailer, detail, code: `http_${answer.status}` })
  return new Unknown({ mailer, detail: `unexpected answer ${detail}` })
}

/**
 * Error codes that mean no connection was made, so nothing was written and a
 * retry cannot duplicate. Every other transport failure may have happened after
 * the request reached Postmark (a reset, a dropped socket), so it is `Unknown`.
 */
const NOTHING_WRITTEN = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "UND_ERR_CONNECT_TIMEOUT"])

/** A failed fetch (no HTTP answer) into `Transient` when nothing was written, else `Unknown`. */
export const classifyTransport = (cause: unknown, mailer: string): MailerError => {
  let reason = "transport failure"
  let current: unknown = cause
  for (let depth = 0; depth < 8 && typeof current === "object" && current !== null; depth++) {
    const { cause: next, code, message } = current as { code?: unknown; message?: unknown; cause?: unknown }
    if (typeof code === "string" && NOTHING_WRITTEN.has(code)) {
      return new Transient({ mailer, detail: `could not connect to Postmark (${code})` })
    }
    if (typeof message === "string") reason = message
    current = next
  }
  return new Unknown({ mailer, detail: `connection failed after the request may have reached Postmark: ${reason}` })
}
