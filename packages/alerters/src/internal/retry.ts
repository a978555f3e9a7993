import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"

export interface RetryOptions {
  /** Retries after the first attempt (default 2). */
  readonly retries?: number
  /** The first delay, doubled each time (default 200 ms). */
  readonly retryBase?: Duration.DurationInput
}

/**
 * A short retry inside the alert attempt, for failures worth a second try: an
 * alert is attempted once by the pipeline (and stays stored if it fails), so
 * a blip should not cost the owner the message.
 */
export const retrying = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  options: RetryOptions,
  shouldRetry: (error: E) => boolean,
  delayAtLeast: (error: E) => Duration.Duration = () => Duration.zero
) =>
  Effect.retry(effect, {
    schedule: Schedule.exponential(options.retryBase ?? "200 millis", 2).pipe(
      Schedule.intersect(Schedule.recurs(options.retries ?? 2)),
      Schedule.intersect(Schedule.identity<E>().pipe(Schedule.addDelay(delayAtLeast)))
    ),
    while: shouldRetry
  })
