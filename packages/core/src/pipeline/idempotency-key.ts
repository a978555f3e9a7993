import { Effect } from "effect"

const MAX_KEY_LENGTH = 256 // Resend's limit, and a sane one for any provider

const sha256Hex = (text: string) =>
  Effect.promise(() => crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))).pipe(
    Effect.map((digest) => Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join(""))
  )

/**
 * The mailer idempotency key of an order: derived from the order key alone, so
 * every sender and every retry of one order carries the same key. An order key
 * too long for the limit is replaced by its SHA-256.
 */
export const orderIdempotencyKey = (orderKey: string): Effect.Effect<string> => {
  const key = `hookgate/order/${orderKey}`
  return key.length <= MAX_KEY_LENGTH
    ? Effect.succeed(key)
    : Effect.map(sha256Hex(orderKey), (hex) => `hookgate/order/sha256-${hex}`)
}
