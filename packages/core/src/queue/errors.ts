import * as Data from "effect/Data"

/** A message could not be handed to the queue. */
export class QueueUnavailable extends Data.TaggedError("QueueUnavailable")<{
  readonly queue: string
  readonly cause?: unknown | undefined
}> {
  override get message() {
    return `queue ${this.queue} did not take the message(s)`
  }
}

/** A message body that no handler can read: retrying will not help. */
export class UnreadableMessage extends Data.TaggedError("UnreadableMessage")<{
  readonly queue: string
  readonly messageId: string
  readonly detail: string
}> {
  override get message() {
    return `message ${this.messageId} on ${this.queue} cannot be read: ${this.detail}`
  }
}
