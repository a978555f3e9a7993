import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { SignatureError } from "./errors.js"

/**
 * Why a signed timestamp is refused at `nowMillis`, or undefined when it lies
 * within `toleranceSeconds` of it, in either direction, in whole seconds as the
 * providers' own libraries count.
 */
export const timestampProblem = (
  provider: string,
  signedAt: number,
  toleranceSeconds: number,
  nowMillis: number
): SignatureError | undefined => {
  const age = Math.floor(nowMillis / 1000) - signedAt
  if (age > toleranceSeconds) {
    return new SignatureError({
      provider,
      reason: "timestamp_too_old",
      detail: `signed ${age} s ago, tolerance is ${toleranceSeconds} s`
    })
  }
  if (-age > toleranceSeconds) {
    return new SignatureError({
      provider,
      reason: "timestamp_in_future",
      detail: `signed ${-age} s ahead of this clock, tolerance is ${toleranceSeconds} s`
    })
  }
  return undefined
}

/**
 * Refuses a signed timestamp more than `toleranceSeconds` from now (see
 * `timestampProblem`). `now` is Effect's Clock, so TestClock drives it.
 */
export const checkTimestamp = (provider: string, signedAt: number, toleranceSeconds: number) =>
  Effect.flatMap(Clock.currentTimeMillis, (nowMillis) => {
    const problem = timestampProblem(provider, signedAt, toleranceSeconds, nowMillis)
    return problem === undefined ? Effect.void : Effect.fail(problem)
  })
