import { Effect, Schema } from "effect"

/** What a paying event obliges the merchant to deliver. `orderKey` is `<provider>:<id>`. */
export class Fulfilment extends Schema.Class<Fulfilment>("Fulfilment")({
  orderKey: Schema.NonEmptyTrimmedString,
  email: Schema.NonEmptyTrimmedString,
  product: Schema.NullOr(Schema.String),
  amount: Schema.Int,
  currency: Schema.String,
  metadata: Schema.Record({ key: Schema.String, value: Schema.String })
}) {}

const toHex = (buffer: ArrayBuffer) =>
  Array.from(new Uint8Array(buffer), (byte) => byte.toString(16).padStart(2, "0")).join("")

/**
 * The hash the conflict check compares. It covers the normalised fulfilment
 * (email, product, amount, currency), not the raw body: Stripe sends several
 * different events for one checkout and each must count as the same order.
 */
export const fulfilmentHash = (fulfilment: Fulfilment): Effect.Effect<string> =>
  Effect.promise(() => {
    const normalised = JSON.stringify([
      fulfilment.email.trim().toLowerCase(),
      fulfilment.product,
      fulfilment.amount,
      fulfilment.currency.trim().toLowerCase()
    ])
    return crypto.subtle.digest("SHA-256", new TextEncoder().encode(normalised))
  }).pipe(Effect.map((digest) => `sha256:${toHex(digest)}`))
