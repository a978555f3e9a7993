import { onceHandler } from "./consume.js"
import { once } from "./once.js"

export { type OnceHandlerOptions, onceHandler } from "./consume.js"
export * from "./message.js"
export * from "./message-ledger.js"
export * from "./dead-letters.js"
export { deadLetterHandler, type DeadLetterOptions, keepDeadLetter } from "./dead-letter.js"
export { type Decision, Decision as Decisions, delaySeconds, type Delivery, retryDelay, retryNoLaterThan } from "./delivery.js"
export { QueueUnavailable, UnreadableMessage } from "./errors.js"
export {
  type InProcessQueue,
  type InProcessQueueOptions,
  type InProcessQueueStats,
  makeInProcessQueue
} from "./in-process-queue.js"
export { once, type OnceOptions, OnceResult, OnceTimeout } from "./once.js"

/** Queue consumers that act once per message: `Consumer.once(key, effect)`, `Consumer.handler({ schema, key, handle })`. */
export const Consumer = { once, handler: onceHandler } as const
