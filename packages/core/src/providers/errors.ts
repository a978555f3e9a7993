import { Schema } from "effect"

/** The failures of verifying and decoding a webhook (statuses in http/contract.ts). */

/** No provider of that name is mounted (404). */
export class UnknownProvider extends Schema.TaggedError<UnknownProvider>()("UnknownProvider", {
  provider: Schema.String
}) {
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
export class SignatureError extends Schema.TaggedError<SignatureError>()("SignatureError", {
  provider: Schema.String,
  reason: SignatureFailure,
  detail: Schema.String
}) {
  override get message() {
    return `${this.provider} signature rejected (${this.reason}): ${this.detail}`
  }
}

/** A verified body that is not UTF-8 JSON, or does not decode to an event or a valid fulfilment (400). */
export class MalformedPayload extends Schema.TaggedError<MalformedPayload>()("MalformedPayload", {
  provider: Schema.String,
  detail: Schema.String
}) {
  override get message() {
    return `${this.provider} payload is malformed: ${this.detail}`
  }
}
