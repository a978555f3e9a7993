import { Effect } from "effect"

/** Resend accepts keys of 1 to 256 characters. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 256

const sha256Hex = (text: string) =>
  Effect.promise(() => crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))).pipe(
    Effect.map((digest) => Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join(""))
  )

/**
 * A key within Resend's limit. The core's order keys always fit; a longer key
 * (from another caller) is replaced by its SHA-256, which is as stable as the key.
 */
export const fitIdempotencyKey = (key: string): Effect.Effect<string> =>
  key.length <= MAX_IDEMPOTENCY_KEY_LENGTH ? Effect.succeed(key) : Effect.map(sha256Hex(key), (hex) => `sha256-${hex}`)
