import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Duration from "effect/Duration"
import * as Either from "effect/Either"
import * as Option from "effect/Option"

/**
 * Durations as an operator writes them, in settings: what `hookgate config check`
 * prints (`5m`, `2m 30s`, `1h 30m`, `500ms`), Effect's words (`5 minutes`,
 * `2 minutes 30 seconds`), a bare number of milliseconds (`30000`), and ISO 8601
 * (`PT5M`, `PT1H30M`, `P1D`).
 */

/** What the refusal lists. */
export const DURATION_FORMS = "5m, 2m 30s, 1h, 500ms, \"5 minutes\", 30000 (milliseconds) or PT5M (ISO 8601)"

const UNIT_MILLIS: ReadonlyArray<readonly [RegExp, number]> = [
  // Effect's smaller words too, so every value `Duration.decode` read before still reads.
  [/^(ns|nanos?|nanoseconds?)$/, 1e-6],
  [/^(us|µs|micros?|microseconds?)$/, 1e-3],
  [/^(ms|millis?|milliseconds?)$/, 1],
  [/^(s|secs?|seconds?)$/, 1000],
  [/^(m|mins?|minutes?)$/, 60_000],
  [/^(h|hrs?|hours?)$/, 3_600_000],
  [/^(d|days?)$/, 86_400_000],
  [/^(w|weeks?)$/, 604_800_000]
]

const unitMillis = (unit: string) => UNIT_MILLIS.find(([pattern]) => pattern.test(unit))?.[1]

const ISO = /^P(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i

const fromIso = (text: string): Option.Option<Duration.Duration> => {
  const match = ISO.exec(text)
  if (match === null || match.slice(1).every((part) => part === undefined) || /T$/i.test(text)) return Option.none()
  const [w, d, h, m, s] = match.slice(1).map((part) => (part === undefined ? 0 : Number(part)))
  return Option.some(Duration.millis(w! * 604_800_000 + d! * 86_400_000 + h! * 3_600_000 + m! * 60_000 + s! * 1000))
}

/** `<number><unit>` parts, with or without spaces between number and unit and between parts. */
const PART = /(\d+(?:\.\d+)?)\s*([a-zµ]+)\s*/giy

const fromParts = (text: string): Option.Option<Duration.Duration> => {
  PART.lastIndex = 0
  let total = 0
  let consumed = 0
  let match: RegExpExecArray | null
  while ((match = PART.exec(text)) !== null) {
    const millis = unitMillis(match[2]!.toLowerCase())
    if (millis === undefined) return Option.none()
    total += Number(match[1]) * millis
    consumed = PART.lastIndex
  }
  return consumed === text.length && consumed > 0 ? Option.some(Duration.millis(total)) : Option.none()
}

/** The duration `text` writes, in any of the forms above; None for anything else. */
export const parseDuration = (input: string): Option.Option<Duration.Duration> => {
  const text = input.trim()
  if (/^\d+$/.test(text)) return Option.some(Duration.millis(Number(text)))
  if (/^p/i.test(text)) return fromIso(text)
  return fromParts(text)
}

const durationPrimitive = Config.primitive("a duration", (text) =>
  Option.match(parseDuration(text), {
    onNone: () => Either.left(ConfigError.InvalidData([], `is not a duration: write it as ${DURATION_FORMS}`)),
    onSome: Either.right
  }))

/**
 * A duration setting read by name, refused with the forms it accepts. Built as
 * `Config.duration` is (a primitive nested under the name), so a `Config.validate`
 * on top still names the setting in its error.
 */
export const durationConfig = (name: string): Config.Config<Duration.Duration> => Config.nested(durationPrimitive, name)
