import { Effect } from "effect"

/**
 * A Message-ID derived from the idempotency key: every retry of one order
 * carries the same one, which lets the receiving side recognise a repeat (Gmail,
 * for one, folds messages with one Message-ID). Best effort, not a guarantee.
 */
export const messageIdFor = (idempotencyKey: string, senderDomain: string): Effect.Effect<string> =>
  Effect.promise(() => crypto.subtle.digest("SHA-256", new TextEncoder().encode(idempotencyKey))).pipe(
    Effect.map((digest) => {
      const hex = Array.from(new Uint8Array(digest).subarray(0, 16), (b) => b.toString(16).padStart(2, "0")).join("")
      return `<hookgate.${hex}@${senderDomain}>`
    })
  )
