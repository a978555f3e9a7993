import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { sha256Hex } from "./digest.js"

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
 * SHA-256 by the `Digest` in context: Web Crypto's (native, one promise), or
 * node:crypto's (synchronous) under `NodeHmac.layer()`. Stored with every order,
 * so the value never depends on the implementation.
 */
export const fulfilmentHash = (fulfilment: Fulfilment): Effect.Effect<string> =>
  Effect.suspend(() => {
    const normalised = JSON.stringify([
      fulfilment.email.trim().toLowerCase(),
      fulfilment.product,
      fulfilment.amount,
      fulfilment.currency.trim().toLowerCase()
    ])
    return Effect.map(sha256Hex(normalised), (digest) => `sha256:${digest}`)
  })
