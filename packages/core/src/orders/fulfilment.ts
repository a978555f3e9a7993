import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/** What a paying event obliges the merchant to deliver. `orderKey` is `<provider>:<id>`. */
export class Fulfilment extends Schema.Class<Fulfilment>("Fulfilment")({
  orderKey: Schema.NonEmptyTrimmedString,
  email: Schema.NonEmptyTrimmedString,
  product: Schema.NullOr(Schema.String),
  amount: Schema.Int,
  currency: Schema.String,
  metadata: Schema.Record({ key: Schema.String, value: Schema.String })
}) {}

/**
 * The hash the conflict check compares. It covers the normalised fulfilment
 * (email, product, amount, currency), not the raw body: Stripe sends several
 * different events for one checkout and each must count as the same order.
 * SHA-256 from @noble/hashes: synchronous, so no Web Crypto round trip on the hot path.
 */
export const fulfilmentHash = (fulfilment: Fulfilment): Effect.Effect<string> =>
  Effect.sync(() => {
    const normalised = JSON.stringify([
      fulfilment.email.trim().toLowerCase(),
      fulfilment.product,
      fulfilment.amount,
      fulfilment.currency.trim().toLowerCase()
    ])
    return `sha256:${bytesToHex(sha256(utf8ToBytes(normalised)))}`
  })
