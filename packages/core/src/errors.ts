import { Duration, Schema } from "effect"

/** Every failure the HTTP contract names, as tagged errors. The status mapping lives in http/contract.ts. */

export class UnknownProvider extends Schema.TaggedError<UnknownProvider>()("UnknownProvider", {
  provider: Schema.String
}) {
  override get message() {
    return `no webhook provider named "${this.provider}" is mounted`
  }
}

export const SignatureFailure = Schema.Literal(
  "missing_header",
  "malformed_header",
  "no_matching_signature",
  "timestamp_too_old",
  "timestamp_in_future"
)
export type SignatureFailure = typeof SignatureFailure.Type

/** Says which check failed; never carries a secret or an expected signature. */
export class SignatureError extends Schema.TaggedError<SignatureError>()("SignatureError", {
  provider: Schema.String,
  reason: SignatureFailure,
  detail: Schema.String
}) {
  override get message() {
    return `${this.provider} signature rejected (${this.reason}): ${this.detail}`
  }
}

export class MalformedPayload extends Schema.TaggedError<MalformedPayload>()("MalformedPayload", {
  provider: Schema.String,
  detail: Schema.String
}) {
  override get message() {
    return `${this.provider} payload is malformed: ${this.detail}`
  }
}

export class OrderConflict extends Schema.TaggedError<OrderConflict>()("OrderConflict", {
  orderKey: Schema.String,
  existingStatus: Schema.String,
  existingHash: Schema.String,
  incomingHash: Schema.String
}) {
  override get message() {
    return `order ${this.orderKey} already exists with a different payload`
  }
}

export class BodyTooLarge extends Schema.TaggedError<BodyTooLarge>()("BodyTooLarge", {
  limitBytes: Schema.Number
}) {
  override get message() {
    return `request body exceeds ${this.limitBytes} bytes`
  }
}

export class StoreUnavailable extends Schema.TaggedError<StoreUnavailable>()("StoreUnavailable", {
  operation: Schema.String,
  cause: Schema.optional(Schema.Defect)
}) {
  override get message() {
    return `order store unavailable during ${this.operation}`
  }
}

export class OrderNotFound extends Schema.TaggedError<OrderNotFound>()("OrderNotFound", {
  orderKey: Schema.String
}) {}

export class RenderError extends Schema.TaggedError<RenderError>()("RenderError", {
  orderKey: Schema.String,
  detail: Schema.String
}) {}

export class AlertFailed extends Schema.TaggedError<AlertFailed>()("AlertFailed", {
  detail: Schema.String
}) {}

// ---- Mailer errors: the three classes every mailer maps its failures into ----

/** Safe to retry: 429, 5xx, a network failure before the request was written. */
export class Transient extends Schema.TaggedError<Transient>()("Transient", {
  mailer: Schema.String,
  detail: Schema.String,
  /** The provider asked us to wait at least this long (Retry-After). */
  retryAfter: Schema.optional(Schema.DurationFromSelf),
  /** The owner should hear of it (a daily or monthly quota, say). */
  alert: Schema.optional(Schema.Boolean)
}) {
  override get message() {
    return `${this.mailer}: transient failure: ${this.detail}`
  }
}

/** Permanent: an invalid address, a validation error. Retrying will not help. */
export class Rejected extends Schema.TaggedError<Rejected>()("Rejected", {
  mailer: Schema.String,
  detail: Schema.String,
  code: Schema.optional(Schema.String)
}) {
  override get message() {
    return `${this.mailer}: rejected: ${this.detail}`
  }
}

/** The provider may or may not have accepted it: a timeout after the request was sent. */
export class Unknown extends Schema.TaggedError<Unknown>()("Unknown", {
  mailer: Schema.String,
  detail: Schema.String
}) {
  override get message() {
    return `${this.mailer}: outcome unknown: ${this.detail}`
  }
}

export type MailerError = Transient | Rejected | Unknown

export const retryAfterOf = (error: MailerError): Duration.Duration =>
  error._tag === "Transient" && error.retryAfter !== undefined ? error.retryAfter : Duration.zero
