/**
 * @hookgate/core/queue: queue consumers that act once per message. `Consumer`
 * runs a side effect once per stable key on the `MessageLedger`'s lease; the
 * `Delivery`/`Decision` pair is what every queue adapter (Cloudflare Queues, the
 * in-process queue) hands to a handler and acts on; messages given up are kept
 * in the `DeadLetterStore`.
 */
export type { OnceHandlerOptions } from "./consume.js"
export * from "./message.js"
export * from "./message-ledger.js"
export * from "./dead-letters.js"
export { deadLetterHandler, type DeadLetterOptions } from "./dead-letter.js"
export { Decision, delaySeconds, type Delivery } from "./delivery.js"
export { QueueUnavailable, UnreadableMessage } from "./errors.js"
/** A queue in the process with Cloudflare Queues' semantics: `InProcessQueue.make(options, handler)`. */
export * as InProcessQueue from "./InProcessQueue.js"
export { type OnceOptions, OnceResult, OnceTimeout } from "./once.js"
/** `Consumer.once(key, effect)` and `Consumer.handler({ schema, key, handle })`. */
export * as Consumer from "./Consumer.js"

