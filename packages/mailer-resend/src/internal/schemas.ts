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

/**
 * Made on first use, then kept: `Schema.parseJson` makes a new schema on every call, so a
 * decoder made inside the call would build its parser for every answer; made at module load,
 * a Worker would build them before its first request.
 */
const once = <F>(make: () => F): () => F => {
  let made: F | undefined
  return () => (made ??= make())
}

const errorBody = once(() => Schema.decodeUnknownOption(Schema.parseJson(ResendErrorBody)))
const sendResponse = once(() => Schema.decodeUnknownEither(Schema.parseJson(SendResponse)))
const batchResponse = once(() => Schema.decodeUnknownEither(Schema.parseJson(BatchResponse)))

/** Resend's error body, from an answer's text. */
export const decodeErrorBody = (input: unknown) => errorBody()(input)

/** A 2xx answer of `POST /emails`, from its text. */
export const decodeSendResponse = (input: unknown) => sendResponse()(input)

/** A 2xx answer of `POST /emails/batch`, from its text. */
export const decodeBatchResponse = (input: unknown) => batchResponse()(input)
