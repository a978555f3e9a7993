import { Effect } from "effect"

const MAX_KEY_LENGTH = 256

const sha256Hex = (text: string) =>
  Effect.promise(() => crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))).pipe(
    Effect.map((digest) => Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join(""))
  )

/**
 * The idempotency key of an alert's email: its own key space, derived from the
 * alert id alone, so a repeated attempt of one alert is one email (with a mailer
 * that honours keys) and never collides with an order's key.
 */
export const alertIdempotencyKey = (alertId: string): Effect.Effect<string> => {
  const key = `hookgate/alert/${alertId}`
  return key.length <= MAX_KEY_LENGTH
    ? Effect.succeed(key)
    : Effect.map(sha256Hex(alertId), (hex) => `hookgate/alert/sha256-${hex}`)
}
