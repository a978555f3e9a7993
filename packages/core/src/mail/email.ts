import * as Schema from "effect/Schema"

/** The email the renderer builds for a fulfilment and the mailer sends. */
export class OutgoingEmail extends Schema.Class<OutgoingEmail>("OutgoingEmail")({
  from: Schema.NonEmptyTrimmedString,
  to: Schema.NonEmptyTrimmedString,
  subject: Schema.String,
  text: Schema.String,
  html: Schema.optional(Schema.String),
  replyTo: Schema.optional(Schema.String),
  headers: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String }))
}) {}

/** What a mailer answers when it accepted an email. */
export class SendReceipt extends Schema.Class<SendReceipt>("SendReceipt")({
  mailer: Schema.String,
  messageId: Schema.String,
  acceptedAt: Schema.Number
}) {}
