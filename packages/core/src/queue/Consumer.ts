/**
 * Queue consumers that act once per message key:
 * - `Consumer.once(key, effect)` runs `effect` once per key (lease, run, record);
 * - `Consumer.handler({ schema, key, handle })` is a queue handler built on it that
 *   acknowledges last and retries with the RetryPolicy's backoff.
 */
export { once } from "./once.js"
export { handler } from "./consume.js"
