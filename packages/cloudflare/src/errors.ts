import * as Schema from "effect/Schema"

/** A binding the Worker needs is missing from `env`, or is not what it should be. */
export class MissingBinding extends Schema.TaggedError<MissingBinding>()("MissingBinding", {
  name: Schema.String,
  expected: Schema.String
}) {
  override get message() {
    return `the Worker has no binding "${this.name}" (${this.expected}): add it to wrangler.jsonc`
  }
}

/** The Worker received a batch from a queue that has no consumer in `makeWorker({ queues })`. */
export class QueueNotConfigured extends Schema.TaggedError<QueueNotConfigured>()("QueueNotConfigured", {
  queue: Schema.String,
  messages: Schema.Number
}) {
  override get message() {
    return `hookgate: no queue consumer is configured for queue "${this.queue}" (add it to makeWorker's queues); ` +
      `${this.messages} message(s) were not acknowledged and will be retried by Cloudflare Queues`
  }
}
