import * as Effect from "effect/Effect"
import { type HmacKey, hmacSha256, timingSafeEqual } from "./hmac.js"

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
  const tryKey = (index: number): Effect.Effect<boolean> =>
    index >= keys.length
      ? Effect.succeed(false)
      : Effect.flatMap(hmacSha256(keys[index]!, ...parts), (expected) =>
        given.some((signature) => timingSafeEqual(signature, expected)) ? Effect.succeed(true) : tryKey(index + 1))
  return tryKey(0)
}
