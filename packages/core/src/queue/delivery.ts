import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { backoffDelay, RetryPolicy } from "../kernel/retry-policy.js"

/** One delivery of a queue message, as every queue adapter hands it to a handler. */
export interface Delivery<A = unknown> {
  readonly queue: string
  /** The queue's id for the message (not stable across two sends of the same content). */
  readonly id: string
  readonly body: A
  /** This delivery's number, from 1 (Cloudflare's `message.attempts`). */
  readonly attempts: number
}

/**
 * What a handler decides for a delivery. Adapters acknowledge last: `Ack` only
 * after the work is recorded complete; `Retry` asks for a later delivery.
 */
export type Decision = Data.TaggedEnum<{
  Ack: {}
  Retry: { readonly delay: Duration.Duration }
}>
/** Constructors and matchers of `Decision`: `Decision.Ack()`, `Decision.Retry({ delay })`. */
export const Decision = Data.taggedEnum<Decision>()

/**
 * The delay before the next delivery after the `attempts`-th one failed: the
 * RetryPolicy's durable backoff Schedule stepped `attempts` times (1 min, 3 min,
 * 9 min, … by default), capped at its `maxBackoff`.
 */
export const retryDelay = (attempts: number): Effect.Effect<Duration.Duration> =>
  Effect.flatMap(RetryPolicy, (policy) => backoffDelay(policy, attempts))

/** Retry after the backoff, but no later than `until` (a lease held elsewhere ends then). */
export const retryNoLaterThan = (attempts: number, until: number, now: number) =>
  Effect.map(retryDelay(attempts), (delay) =>
    Decision.Retry({ delay: Duration.max(Duration.zero, Duration.min(delay, Duration.millis(until - now))) }))

/** Whole seconds for Cloudflare's `retry({ delaySeconds })` (0 to 12 hours). */
export const delaySeconds = (delay: Duration.Duration): number =>
  Math.min(43_200, Math.max(0, Math.ceil(Duration.toMillis(delay) / 1000)))
