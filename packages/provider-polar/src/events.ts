import * as Schema from "effect/Schema"

/**
 * The parts of Polar's `order.paid` hookgate reads. Every Polar webhook body is
 * `{ type, timestamp, data }`; structs ignore fields they do not name, so fields
 * Polar adds later decode as before.
 */

/** The one event that pays for an order: sent when the order is fully processed and paid. */
export const ORDER_PAID = "order.paid"

/** Read first: only a paid order needs the rest (`pending`, `refunded` and `partially_refunded` do not pay). */
export const OrderStatus = Schema.Struct({ data: Schema.Struct({ status: Schema.String }) })

/** Polar's metadata values: strings, numbers and booleans. */
export const Metadata = Schema.Record({ key: Schema.String, value: Schema.Union(Schema.String, Schema.Number, Schema.Boolean) })

/** A paid order: the fields its fulfilment needs. */
export const PaidOrder = Schema.Struct({
  id: Schema.NonEmptyString,
  /** In cents of `currency`, tax included. */
  total_amount: Schema.Int,
  currency: Schema.NonEmptyString,
  product_id: Schema.optional(Schema.NullOr(Schema.String)),
  customer: Schema.Struct({ email: Schema.String }),
  metadata: Schema.optional(Schema.NullOr(Metadata))
})
/** A decoded paid order. */
export type PaidOrder = typeof PaidOrder.Type

/** An `order.paid` event, read as its `data`. */
export const OrderPaidEvent = Schema.Struct({ data: PaidOrder })
