import * as Schema from "effect/Schema"

/**
 * The parts of Creem's events hookgate reads. Structs ignore fields they do not
 * name, so fields Creem adds later decode as before.
 */

/** Every event: `{ id: "evt_…", eventType, created_at, object }`, read as its id and type. */
export const EventEnvelope = Schema.rename(Schema.Struct({
  id: Schema.NonEmptyString,
  eventType: Schema.NonEmptyString
}), { eventType: "type" })

/** The one event that pays for an order. */
export const CHECKOUT_COMPLETED = "checkout.completed"

/** An expanded object, or (defensively) just its id. */
const IdOrObject = Schema.Union(Schema.String, Schema.Struct({ id: Schema.String }))

/**
 * Creem's metadata is free-form JSON set when the checkout was created
 * (`{ userId: "u_1", visitCount: 42 }`); hookgate keeps it as strings.
 */
export const Metadata = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/** A completed checkout: the fields its fulfilment needs. */
export const CompletedCheckout = Schema.Struct({
  order: Schema.Struct({
    id: Schema.NonEmptyString,
    amount: Schema.Int,
    currency: Schema.NonEmptyString,
    product: Schema.optional(Schema.NullOr(Schema.String))
  }),
  product: Schema.optional(Schema.NullOr(IdOrObject)),
  customer: Schema.Struct({ email: Schema.String }),
  metadata: Schema.optional(Schema.NullOr(Metadata))
})
/** A decoded completed checkout. */
export type CompletedCheckout = typeof CompletedCheckout.Type

/** A `checkout.completed` event, read as its `object`. */
export const CheckoutCompletedEvent = Schema.Struct({ object: CompletedCheckout })
