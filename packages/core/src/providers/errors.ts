import * as Data from "effect/Data"
import * as Schema from "effect/Schema"

/** The failures of verifying and decoding a webhook (statuses in http/contract.ts). */

/** No provider of that name is mounted (404). */
export class UnknownProvider extends Data.TaggedError("UnknownProvider")<{
  readonly provider: string
}> {
  override get message() {
    return `no webhook provider named "${this.provider}" is mounted`
  }
}

/** Which signature check failed. */
export const SignatureFailure = Schema.Literal(
  "missing_header",
  "malformed_header",
  "no_matching_signature",
  "timestamp_too_old",
  "timestamp_in_future"
)
export type SignatureFailure = typeof SignatureFailure.Type

/** Says which check failed; never carries a secret or an expected signature. */
export class SignatureError extends Data.TaggedError("SignatureError")<{
  readonly provider: string
  readonly reason: SignatureFailure
  readonly detail: string
}> {
  override get message() {
    return `${this.provider} signature rejected (${this.reason}): ${this.detail}`
  }
}

/** A verified body that is not UTF-8 JSON, or does not decode to an event or a valid fulfilment (400). */
export class MalformedPayload extends Data.TaggedError("MalformedPayload")<{
  readonly provider: string
  readonly detail: string
  /** The provider's object id, where the payload let it be read (set by `fulfilOn`). */
  readonly objectId?: string | undefined
  /**
   * A decoded order id or email broke a rule (a control character, over-long): the
   * event can never become an order, so it stays 400 (still stored as a receipt).
   * Any other fulfilment failure of a verified paying event is `Unfulfillable` (500).
   */
  readonly invalidInput?: boolean | undefined
}> {
  override get message() {
    return `${this.provider} payload is malformed: ${this.detail}`
  }
}

/**
 * A verified paying event whose fulfilment could not be decoded (a paid session
 * without an email, say). Stored as an `unfulfillable` receipt with an owner alert,
 * and answered 500 `unfulfillable` so that the provider keeps retrying, as for a
 * transient error, while the owner looks.
 */
export class Unfulfillable extends Data.TaggedError("Unfulfillable")<{
  readonly provider: string
  readonly eventId: string
  readonly objectId: string | null
  readonly detail: string
}> {
  override get message() {
    return `${this.provider} event ${this.eventId} pays but cannot be fulfilled: ${this.detail}`
  }
}
