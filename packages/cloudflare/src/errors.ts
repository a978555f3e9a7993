import * as Data from "effect/Data"

/** A binding the Worker needs is missing from `env`, or is not what it should be. */
export class MissingBinding extends Data.TaggedError("MissingBinding")<{
  readonly name: string
  readonly expected: string
}> {
  override get message() {
    return `the Worker has no binding "${this.name}" (${this.expected}): add it to wrangler.jsonc`
  }
}

/** The Worker received a batch from a queue that has no consumer in `makeWorker({ queues })`. */
export class QueueNotConfigured extends Data.TaggedError("QueueNotConfigured")<{
  readonly queue: string
  readonly messages: number
}> {
  override get message() {
    return `hookgate: no queue consumer is configured for queue "${this.queue}" (add it to makeWorker's queues); ` +
      `${this.messages} message(s) were not acknowledged and will be retried by Cloudflare Queues`
  }
}
