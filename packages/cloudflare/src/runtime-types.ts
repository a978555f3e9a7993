/**
 * The parts of the Workers runtime this package touches, typed structurally so
 * that it needs neither `@cloudflare/workers-types` nor its globals: the real
 * `ExecutionContext`, `ScheduledController` and `MessageBatch` are assignable.
 */

export interface WorkerExecutionContext {
  /** Keeps the invocation alive until the promise settles, after the response is sent. */
  waitUntil(promise: Promise<unknown>): void
}

/** The cron controller Workers hand to `scheduled`. */
export interface WorkerScheduledController {
  /** The cron expression that fired, e.g. `*\/10 * * * *`. */
  readonly cron: string
  /** When the run was scheduled, in epoch ms. */
  readonly scheduledTime: number
}

/** One message of a queue batch, as the Workers runtime hands it to `queue()`. */
export interface WorkerMessage {
  readonly id: string
  readonly body: unknown
  /** This delivery's number, from 1. */
  readonly attempts: number
  /** Acknowledges the message (the first call on a message wins). */
  ack(): void
  /** Asks for a later delivery, after `delaySeconds` (0 to 43,200). */
  retry(options?: { delaySeconds?: number }): void
}

/** A batch of Queue messages Workers hand to `queue`. */
export interface WorkerMessageBatch {
  readonly queue: string
  readonly messages: ReadonlyArray<WorkerMessage>
}

/** A Queue producer binding (`env.CAMPAIGNS`); the runtime's `Queue` is assignable. */
export interface WorkerQueueProducer {
  /** `delaySeconds` (0 to 43,200): delivered no sooner. */
  sendBatch(messages: Iterable<{ body: unknown; delaySeconds?: number }>): Promise<unknown>
}
