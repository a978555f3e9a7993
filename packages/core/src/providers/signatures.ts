import * as Effect from "effect/Effect"
import type { HmacKey } from "./hmac.js"

/**
 * Whether any of the given signatures is the HMAC of `parts` under any key:
 * keys in order (newest first, so the usual request costs one HMAC), each
 * comparison constant-time. Every provider's check is this with its own
 * signed content (Stripe `${t}.` + body, Standard Webhooks `${id}.${t}.` + body,
 * Creem the body alone).
 */
export const anyKeyMatches = (
  keys: ReadonlyArray<HmacKey>,
  parts: ReadonlyArray<Uint8Array>,
  given: ReadonlyArray<Uint8Array>
): Effect.Effect<boolean> => {
  if (keys.every((key) => key.signSync !== undefined)) return Effect.sync(() => anyKeyMatchesSync(keys, parts, given))
  const tryKey = (index: number): Effect.Effect<boolean> =>
    index >= keys.length
      ? Effect.succeed(false)
      : Effect.flatMap(keys[index]!.sign(parts), (expected) =>
        matchesAny(keys[index]!, expected, given) ? Effect.succeed(true) : tryKey(index + 1))
  return tryKey(0)
}

/** `anyKeyMatches` for keys that all sign synchronously (node:crypto): no fiber suspends. */
export const anyKeyMatchesSync = (
  keys: ReadonlyArray<HmacKey>,
  parts: ReadonlyArray<Uint8Array>,
  given: ReadonlyArray<Uint8Array>
): boolean => {
  for (const key of keys) {
    if (matchesAny(key, key.signSync!(parts), given)) return true
  }
  return false
}

const matchesAny = (key: HmacKey, expected: Uint8Array, given: ReadonlyArray<Uint8Array>) => {
  for (const signature of given) {
    if (key.equals(signature, expected)) return true
  }
  return false
}
