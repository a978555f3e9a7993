import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js"
import { Effect } from "effect"

const MAX_KEY_LENGTH = 256 // Resend's limit, and a sane one for any provider

/**
 * The mailer idempotency key of an order: derived from the order key alone, so
 * every sender and every retry of one order carries the same key. An order key
 * too long for the limit is replaced by its SHA-256.
 */
export const orderIdempotencyKey = (orderKey: string): Effect.Effect<string> => {
  const key = `hookgate/order/${orderKey}`
  return key.length <= MAX_KEY_LENGTH
    ? Effect.succeed(key)
    : Effect.succeed(`hookgate/order/sha256-${bytesToHex(sha256(utf8ToBytes(orderKey)))}`)
}
