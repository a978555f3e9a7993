import * as Schema from "effect/Schema"

/** `POST /email` answers the accepted message: `ErrorCode` 0 and its `MessageID`. */
export const SendResponse = Schema.Struct({
  ErrorCode: Schema.Number,
  Message: Schema.String,
  MessageID: Schema.optional(Schema.String),
  SubmittedAt: Schema.optional(Schema.String),
  To: Schema.optional(Schema.String)
})
export type SendResponse = typeof SendResponse.Type

/** `POST /email/batch` answers 200 with one result per message, in order, each with its own `ErrorCode`. */
export const BatchResponse = Schema.Array(SendResponse)

/** Postmark's error body: `{ ErrorCode, Message }`. */
export const PostmarkErrorBody = Schema.Struct({ ErrorCode: Schema.Number, Message: Schema.String })
export type PostmarkErrorBody = typeof PostmarkErrorBody.Type

export const decodeErrorBody = Schema.decodeUnknownOption(Schema.parseJson(PostmarkErrorBody))
