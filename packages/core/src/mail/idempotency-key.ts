import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js"

/** The longest key any sender produces: Resend's limit, and a sane one for any provider. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 256

// Printable ASCII: what any HTTP header (and an email header) carries unchanged.
// No CR, LF or NUL, nothing above U+007E.
const HEADER_SAFE = /^[\x20-\x7e]*$/

/** The SHA-256 of a text's UTF-8 bytes, as 64 lower-case hex digits (synchronous). */
export const sha256Hex = (text: string): string => bytesToHex(sha256(utf8ToBytes(text)))

/**
 * `prefix + id` when it fits the length limit and is header-safe; otherwise
 * `prefix + "sha256-" + sha256(id)`, which is both and just as stable. The
 * prefix is hookgate's own (header-safe, short). Keys are fitted here, once:
 * a mailer sends the key it is given.
 */
const fitted = (prefix: string, id: string): string => {
  const key = `${prefix}${id}`
  return key.length <= MAX_IDEMPOTENCY_KEY_LENGTH && HEADER_SAFE.test(key) ? key : `${prefix}sha256-${sha256Hex(id)}`
}

/** Whether a key can travel in an HTTP header as it is (printable ASCII within the length limit). */
export const isHeaderSafeKey = (key: string): boolean =>
  key.length > 0 && key.length <= MAX_IDEMPOTENCY_KEY_LENGTH && HEADER_SAFE.test(key)

/**
 * The mailer idempotency key of an order, `hookgate/order/<order key>`: derived
 * from the order key alone, so every sender and every retry of one order
 * carries the same key.
 */
export const orderIdempotencyKey = (orderKey: string): string => fitted("hookgate/order/", orderKey)

/**
 * The idempotency key of a campaign batch: the same for every retry of that
 * batch, which is safe because its membership is fixed when it is reserved.
 */
export const campaignBatchKey = (campaignId: string, batch: number): string =>
  fitted(`hookgate/campaign/${campaignId}/batch/`, String(batch))

/** The per-recipient key, for mailers without batch sending (and a rejected batch sent one by one). */
export const campaignRecipientKey = (campaignId: string, email: string): string =>
  fitted(`hookgate/campaign/${campaignId}/to/`, email)

/**
 * The idempotency key of an alert's email: its own key space, derived from the
 * alert id alone, so a repeated attempt of one alert is one email (with a mailer
 * that honours keys) and never collides with an order's key.
 */
export const alertIdempotencyKey = (alertId: string): string => fitted("hookgate/alert/", alertId)
