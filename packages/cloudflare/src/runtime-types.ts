/**
 * The parts of the Workers runtime this package touches, typed structurally so
 * that it needs neither `@cloudflare/workers-types` nor its globals: the real
 * `ExecutionContext`, `ScheduledController` and `MessageBatch` are assignable.
 */

export interface WorkerExecutionContext {
  /** Keeps the invocation alive until the promise settles, after the response is sent. */
  waitUntil(promise: Promise<unknown>): void
}

export interface WorkerScheduledController {
  /** The cron expression that fired, e.g. `*\/10 * * * *`. */
  readonly cron: string
  /** When the run was scheduled, in epoch ms. */
  readonly scheduledTime: number
}

export interface WorkerMessageBatch {
  readonly queue: string
  readonly messages: ReadonlyArray<unknown>
}
