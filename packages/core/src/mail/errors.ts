import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import type { SendReceipt } from "./email.js"

// The four classes every mailer maps its failures into.

/** Safe to retry: 429, 5xx, a network failure before the request was written. */
export class Transient extends Data.TaggedError("Transient")<{
  readonly mailer: string
  readonly detail: string
  /** The provider asked us to wait at least this long (Retry-After). */
  readonly retryAfter?: Duration.Duration | undefined
  /** The owner should hear of it (a daily or monthly quota, say). */
  readonly alert?: boolean | undefined
}> {
  override get message() {
    return `${this.mailer}: transient failure: ${this.detail}`
  }
}

/** Permanent: an invalid address, a validation error. Retrying will not help. */
export class Rejected extends Data.TaggedError("Rejected")<{
  readonly mailer: string
  readonly detail: string
  readonly code?: string | undefined
  /**
   * The mailer says an earlier request under this idempotency key was accepted and this
   * one differs (Resend's 409 `invalid_idempotent_request`: the From or the content
   * changed between attempts). For an order whose earlier attempt was uncertain, the
   * email went out: the pipeline records it sent, never `failed`.
   */
  readonly keyAlreadyUsed?: boolean | undefined
  /**
   * For a batch the mailer accepted in part (Postmark answers each message of a batch
   * on its own): one entry per email, in order, the receipt of each that went out and
   * undefined for each refused. A campaign records those sent and sends only the
   * others again, one by one. Absent: nothing of the batch went out.
   */
  readonly accepted?: ReadonlyArray<SendReceipt | undefined> | undefined
}> {
  override get message() {
    return `${this.mailer}: rejected: ${this.detail}`
  }
}

/** The provider may or may not have accepted it: a timeout after the request was sent. */
export class Unknown extends Data.TaggedError("Unknown")<{
  readonly mailer: string
  readonly detail: string
}> {
  override get message() {
    return `${this.mailer}: outcome unknown: ${this.detail}`
  }
}

/**
 * The mail account or the mailer's settings are wrong (a revoked or missing API key,
 * an unverified sending domain, a wrong base URL): no order can be sent until the
 * owner fixes it. Not the order's fault: the attempt is not counted, the order is
 * held, and the `MailerCircuit` stops sending through this mailer until a probe
 * succeeds.
 */
export class Misconfigured extends Data.TaggedError("Misconfigured")<{
  readonly mailer: string
  readonly detail: string
  /** The provider's error code (`restricted_api_key`, `E_SENDER_NOT_VERIFIED`, `http_404`). */
  readonly code: string
}> {
  override get message() {
    return `${this.mailer}: misconfigured (${this.code}): ${this.detail}`
  }
}

/** Every failure a mailer may answer. */
export type MailerError = Transient | Rejected | Unknown | Misconfigured

/** How long the mailer asked us to wait before a retry (zero when it did not). */
export const retryAfterOf = (error: MailerError): Duration.Duration =>
  error._tag === "Transient" && error.retryAfter !== undefined ? error.retryAfter : Duration.zero
