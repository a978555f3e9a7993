import * as Duration from "effect/Duration"
import * as Option from "effect/Option"

/**
 * How long the server asked us to wait: `retry-after` (delta seconds or an
 * HTTP date), else `ratelimit-reset` (seconds until the window resets).
 */
export const retryAfterFrom = (
  headers: Readonly<Record<string, string | undefined>>,
  now: number
): Option.Option<Duration.Duration> =>
  Option.orElse(parseRetryAfter(headers["retry-after"], now), () => parseSeconds(headers["ratelimit-reset"]))

const parseSeconds = (value: string | undefined): Option.Option<Duration.Duration> => {
  if (value === undefined || !/^\s*\d+(\.\d+)?\s*$/.test(value)) return Option.none()
  return Option.some(Duration.millis(Math.round(Number(value) * 1000)))
}

const parseRetryAfter = (value: string | undefined, now: number): Option.Option<Duration.Duration> => {
  if (value === undefined) return Option.none()
  const seconds = parseSeconds(value)
  if (Option.isSome(seconds)) return seconds
  const at = Date.parse(value)
  return Number.isNaN(at) ? Option.none() : Option.some(Duration.millis(Math.max(0, at - now)))
}
