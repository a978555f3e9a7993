/**
 * @hookgate/core/queue: queue consumers that act once per message. `Consumer`
 * runs a side effect once per stable key on the `MessageLedger`'s lease; the
 * `Delivery`/`Decision` pair is what every queue adapter (Cloudflare Queues, the
 * in-process queue) hands to a handler and acts on; messages given up are kept
 * in the `DeadLetterStore`.
 */
import { onceHandler } from "./consume.js"
import { once } from "./once.js"

export type { OnceHandlerOptions } from "./consume.js"
export * from "./message.js"
export * from "./message-ledger.js"
export * from "./dead-letters.js"
export { deadLetterHandler, type DeadLetterOptions } from "./dead-letter.js"
export { Decision, delaySeconds, type Delivery } from "./delivery.js"
export { QueueUnavailable, UnreadableMessage } from "./errors.js"
export {
  type InProcessQueue,
  type InProcessQueueOptions,
  type InProcessQueueStats,
  makeInProcessQueue
} from "./in-process-queue.js"
export { type OnceOptions, OnceResult, OnceTimeout } from "./once.js"

/**
 * Queue consumers that act once per message key:
 * - `Consumer.once(key, effect)` runs `effect` once per key (lease, run, record);
 * - `Consumer.handler({ schema, key, handle })` is a queue handler built on it that
 *   acknowledges last and retries with the RetryPolicy's backoff.
 */
export const Consumer = { once, handler: onceHandler } as const
