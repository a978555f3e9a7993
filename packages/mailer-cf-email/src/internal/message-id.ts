import { sha256Hex } from "@hookgate/core/mail"

/**
 * A Message-ID derived from the idempotency key: every retry of one order
 * carries the same one, which lets the receiving side recognise a repeat (Gmail,
 * for one, folds messages with one Message-ID). Best effort, not a guarantee.
 */
export const messageIdFor = (idempotencyKey: string, senderDomain: string): string =>
  `<hookgate.${sha256Hex(idempotencyKey).slice(0, 32)}@${senderDomain}>`
