import { sha256Hex } from "@hookgate/core"
import * as Effect from "effect/Effect"

/**
 * A Message-ID derived from the idempotency key: every retry of one order
 * carries the same one, which lets the receiving side recognise a repeat (Gmail,
 * for one, folds messages with one Message-ID). Best effort, not a guarantee.
 */
export const messageIdFor = (idempotencyKey: string, senderDomain: string): Effect.Effect<string> =>
  Effect.map(sha256Hex(idempotencyKey), (digest) => `<hookgate.${digest.slice(0, 32)}@${senderDomain}>`)
