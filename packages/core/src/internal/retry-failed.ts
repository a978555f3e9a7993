import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"

/**
 * `Effect.retry(effect, { schedule: schedule(), while: retries })`, with the
 * schedule (and its driver) made only after a first failure that `retries` accepts: a success on
 * the first try, the common case, costs no driver (its `Ref`s) and no retry loop.
 * Each failure steps the schedule with the error (sleeping its delay) before the
 * next try; once it is done, the last error is the result.
 */
export const retryFailed = <E, X, RS>(schedule: () => Schedule.Schedule<X, E, RS>, retries: (error: E) => boolean) =>
<A, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | RS> =>
  Effect.catchIf(effect, retries, (first) =>
    Effect.flatMap(Schedule.driver(schedule()), (driver) => {
      const again = (error: E): Effect.Effect<A, E, R | RS> =>
        Effect.matchEffect(driver.next(error), {
          onFailure: () => Effect.fail(error),
          onSuccess: () => Effect.catchIf(effect, retries, again)
        })
      return again(first)
    }))
