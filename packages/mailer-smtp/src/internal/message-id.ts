import { sha256Hex } from "@hookgate/core"
import * as Effect from "effect/Effect"

/**
 * A Message-ID derived from the idempotency key: every attempt of one order carries
 * the same one, so a resend after an uncertain attempt is recognisable (the receiving
 * side or a mail client can fold the two; Gmail does). Best effort, not a guarantee.
 */
export const messageIdFor = (idempotencyKey: string, senderDomain: string): Effect.Effect<string> =>
  Effect.map(sha256Hex(idempotencyKey), (digest) => `<hookgate.${digest.slice(0, 32)}@${senderDomain}>`)
