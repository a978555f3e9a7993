import * as Effect from "effect/Effect"
import { sha256Hex } from "../kernel/digest.js"

/** The longest key any sender produces: Resend's limit, and a sane one for any provider. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 256

// Printable ASCII: what any HTTP header (and an email header) carries unchanged.
// No CR, LF or NUL, nothing above U+007E.
const HEADER_SAFE = /^[\x20-\x7e]*$/

/**
 * `prefix + id` when it fits the length limit and is header-safe; otherwise
 * `prefix + "sha256-" + sha256(id)`, which is both and just as stable. The
 * prefix is hookgate's own (header-safe, short). Keys are fitted here, once:
 * a mailer sends the key it is given. A key that fits is the whole cost (no digest, no
 * promise); only a key that must be hashed asks the kernel's `Digest` (node:crypto's,
 * synchronous, under `NodeHmac.layer()`; Web Crypto's otherwise).
 */
const fitted = (prefix: string, id: string): Effect.Effect<string> => {
  const key = `${prefix}${id}`
  return key.length <= MAX_IDEMPOTENCY_KEY_LENGTH && HEADER_SAFE.test(key)
    ? Effect.succeed(key)
    : Effect.map(sha256Hex(id), (digest) => `${prefix}sha256-${digest}`)
}

/** Whether a key can travel in an HTTP header as it is (printable ASCII within the length limit). */
export const isHeaderSafeKey = (key: string): boolean =>
  key.length > 0 && key.length <= MAX_IDEMPOTENCY_KEY_LENGTH && HEADER_SAFE.test(key)

/**
 * The mailer idempotency key of an order, `hookgate/order/<order key>`: derived
 * from the order key alone, so every sender and every retry of one order
 * carries the same key.
 */
export const orderIdempotencyKey = (orderKey: string): Effect.Effect<string> => fitted("hookgate/order/", orderKey)

/**
 * The idempotency key of a campaign batch: the same for every retry of that
 * batch, which is safe because its membership is fixed when it is reserved.
 */
export const campaignBatchKey = (campaignId: string, batch: number): Effect.Effect<string> =>
  fitted(`hookgate/campaign/${campaignId}/batch/`, String(batch))

/** The per-recipient key, for mailers without batch sending (and a rejected batch sent one by one). */
export const campaignRecipientKey = (campaignId: string, email: string): Effect.Effect<string> =>
  fitted(`hookgate/campaign/${campaignId}/to/`, email)

/**
 * The idempotency key of an alert's email: its own key space, derived from the
 * alert id alone, so a repeated attempt of one alert is one email (with a mailer
 * that honours keys) and never collides with an order's key.
 */
export const alertIdempotencyKey = (alertId: string): Effect.Effect<string> => fitted("hookgate/alert/", alertId)
