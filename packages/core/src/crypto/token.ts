import { Effect, Redacted } from "effect"
import { timingSafeEqual } from "./hmac.js"

const sha256 = (text: string) =>
  Effect.promise(() => crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))).pipe(Effect.map((digest) => new Uint8Array(digest)))

/**
 * Whether a presented token equals the expected one, leaking neither its
 * content nor its length: both sides are hashed (SHA-256, 32 bytes whatever
 * their length) and the digests compared in constant time. For bearer tokens
 * (the admin routes, `/metrics`); Web Crypto, so Workers and Node alike.
 */
export const tokenMatches = (presented: string, expected: Redacted.Redacted<string>): Effect.Effect<boolean> =>
  Effect.zipWith(sha256(presented), sha256(Redacted.value(expected)), timingSafeEqual)

/** The token of an `Authorization: Bearer <token>` header, or "" when there is none. */
export const bearerTokenOf = (authorization: string | undefined): string => {
  const match = /^Bearer (.+)$/.exec(authorization ?? "")
  return match === null ? "" : match[1]!
}
