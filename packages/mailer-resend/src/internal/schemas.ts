import * as Schema from "effect/Schema"

/** `POST /emails` answers the id of the accepted email. */
export const SendResponse = Schema.Struct({ id: Schema.String })

/** `POST /emails/batch` answers one id per email, in order. */
export const BatchResponse = Schema.Struct({ data: Schema.Array(Schema.Struct({ id: Schema.String })) })

/** Resend's error body: `{ statusCode, message, name }`. */
export const ResendErrorBody = Schema.Struct({
  statusCode: Schema.optional(Schema.NullOr(Schema.Number)),
  name: Schema.String,
  message: Schema.String
})
export type ResendErrorBody = typeof ResendErrorBody.Type

export const decodeErrorBody = (input: unknown) => Schema.decodeUnknownOption(Schema.parseJson(ResendErrorBody))(input)

// Built once: `Schema.parseJson` makes a new schema (and its annotations) on every call.
/** A 2xx answer of `POST /emails`, from its text. */
export const decodeSendResponse = (input: unknown) => Schema.decodeUnknownEither(Schema.parseJson(SendResponse))(input)

/** A 2xx answer of `POST /emails/batch`, from its text. */
export const decodeBatchResponse = (input: unknown) => Schema.decodeUnknownEither(Schema.parseJson(BatchResponse))(input)
