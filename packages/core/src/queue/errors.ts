import * as Schema from "effect/Schema"

/** A message could not be handed to the queue. */
export class QueueUnavailable extends Schema.TaggedError<QueueUnavailable>()("QueueUnavailable", {
  queue: Schema.String,
  cause: Schema.optional(Schema.Defect)
}) {
  override get message() {
    return `queue ${this.queue} did not take the message(s)`
  }
}

/** A message body that no handler can read: retrying will not help. */
export class UnreadableMessage extends Schema.TaggedError<UnreadableMessage>()("UnreadableMessage", {
  queue: Schema.String,
  messageId: Schema.String,
  detail: Schema.String
}) {
  override get message() {
    return `message ${this.messageId} on ${this.queue} cannot be read: ${this.detail}`
  }
}
