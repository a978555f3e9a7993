import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Random from "effect/Random"
import * as Schedule from "effect/Schedule"
import { RetryPolicy, type RetryPolicyShape } from "../kernel/retry-policy.js"
import { Mailer, type MailerShape } from "./mailer.js"

/** The top of every jitter: the span is a worst case, not a typical one. */
const WORST_JITTER = 0.999_999

/**
 * The longest an order's attempts can span, first to last, under `policy`: for
 * each of the `maxAttempts - 1` gaps, the failing attempt holding its lease
 * (`leaseFor`), the durable delay (the `backoff` Schedule's n-th delay, capped at
 * `maxBackoff`, its jitter at the top) and a whole sweep interval before the sweep
 * picks the order up again (the `sweepEvery` Schedule's longest delay).
 */
export const attemptSpan = (policy: RetryPolicyShape): Effect.Effect<Duration.Duration> =>
  Effect.gen(function*() {
    const gaps = Array.from({ length: Math.max(0, policy.maxAttempts - 1) }, () => undefined)
    const backoff = yield* Schedule.run(Schedule.delays(policy.backoff), 0, gaps)
    const sweeps = yield* Schedule.run(Schedule.delays(policy.sweepEvery), 0, gaps)
    const sweepGap = Chunk.reduce(sweeps, Duration.zero, Duration.max)
    return Chunk.reduce(backoff, Duration.zero, (span, delay) =>
      Duration.sum(span, Duration.sum(Duration.min(delay, policy.maxBackoff), Duration.sum(sweepGap, policy.leaseFor))))
  }).pipe(Effect.withRandom(Random.fixed([WORST_JITTER])))

const hours = (millis: number) => `${Number((millis / 3_600_000).toFixed(1))} h`

/**
 * A RetryPolicy whose attempts can outlast the mailer's idempotency-key window: a
 * retry after the window is a fresh send under the same key, so an earlier send
 * whose answer was lost becomes a second email.
 */
export class KeyWindowExceeded extends Data.TaggedError("KeyWindowExceeded")<{
  readonly mailer: string
  readonly maxAttempts: number
  readonly spanMillis: number
  readonly windowMillis: number
}> {
  override get message() {
    return `the RetryPolicy's ${this.maxAttempts} attempts can span ${hours(this.spanMillis)}, ` +
      `past ${this.mailer}'s idempotency-key window of ${hours(this.windowMillis)}: ` +
      "a retry after the window would send a second email. Lower maxAttempts or maxBackoff"
  }
}

/** Fails with `KeyWindowExceeded` when `policy`'s attempts can span past `mailer.idempotencyKeyWindow`. */
export const checkKeyWindow = (policy: RetryPolicyShape, mailer: MailerShape): Effect.Effect<void, KeyWindowExceeded> =>
  Effect.gen(function*() {
    const window = mailer.idempotencyKeyWindow
    if (!mailer.honoursIdempotencyKeys || window === undefined) return
    const span = yield* attemptSpan(policy)
    if (Duration.greaterThanOrEqualTo(span, window)) {
      return yield* new KeyWindowExceeded({
        mailer: mailer.name,
        maxAttempts: policy.maxAttempts,
        spanMillis: Duration.toMillis(span),
        windowMillis: Duration.toMillis(window)
      })
    }
  })

/**
 * `layer` (which provides a `Mailer` and a `RetryPolicy`), refused when it is
 * built if the policy's attempts can span past the mailer's key window.
 */
export const withKeyWindowCheck = <A, E, R>(layer: Layer.Layer<A | Mailer | RetryPolicy, E, R>) =>
  Layer.tap(layer, (context) => checkKeyWindow(Context.get(context, RetryPolicy), Context.get(context, Mailer)))
