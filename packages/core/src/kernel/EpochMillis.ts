import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"

/**
 * Every time hookgate stores is a whole epoch millisecond, made whole here, where
 * it is produced. Effect's `Clock` gives whole milliseconds on a real clock, but a
 * `TestClock` moved by a fraction, or a jittered `Schedule` delay, gives a
 * fraction: Postgres refuses it in a BIGINT column and SQLite would keep a REAL.
 * So the pipeline reads the time through `now` (floored: at most 1 ms early, which
 * the lease token makes harmless) and adds delays with `after` (rounded up: a due
 * time is never earlier than its delay). Stores keep what they are given.
 */

/** A time as a store keeps it: epoch milliseconds, floored to a whole number. */
export const of = (millis: number): number => Math.floor(millis)

/** The `Clock`'s time as a whole epoch millisecond. */
export const now: Effect.Effect<number> = Effect.map(Clock.currentTimeMillis, of)

/** `from` (a whole millisecond) plus `delay`, rounded up to a whole millisecond. */
export const after = (from: number, delay: Duration.DurationInput): number =>
  of(from) + Math.ceil(Duration.toMillis(delay))
