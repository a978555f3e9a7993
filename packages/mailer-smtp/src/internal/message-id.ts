import { sha256Hex } from "@hookgate/core/mail"

/**
 * A Message-ID derived from the idempotency key: every attempt of one order carries
 * the same one, so a resend after an uncertain attempt is recognisable (the receiving
 * side or a mail client can fold the two; Gmail does). Best effort, not a guarantee.
 */
export const messageIdFor = (idempotencyKey: string, senderDomain: string): string =>
  `<hookgate.${sha256Hex(idempotencyKey).slice(0, 32)}@${senderDomain}>`
