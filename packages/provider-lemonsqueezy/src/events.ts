import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

/**
 * The parts of Lemon Squeezy's events hookgate reads. Every webhook body is a
 * JSON:API resource: `{ meta: { event_name, custom_data?, test_mode? }, data:
 * { type, id, attributes } }`. Structs ignore fields they do not name, so fields
 * Lemon Squeezy adds later decode as before.
 */

/** The one event that pays for an order. */
export const ORDER_CREATED = "order_created"

/** The order status that means paid; `pending`, `failed`, `refunded`, `partial_refund` and `fraudulent` do not. */
export const PAID_STATUS = "paid"

const Resource = Schema.Struct({
  meta: Schema.Struct({ event_name: Schema.NonEmptyString }),
  // Optional here: a paying event without its order id is unfulfillable (kept, alerted), not refused unread.
  data: Schema.optional(Schema.Struct({ type: Schema.optional(Schema.String), id: Schema.optional(Schema.String) }))
})

/**
 * Every event, read as its id and type. The type is the signed body's
 * `meta.event_name` (the `X-Event-Name` header says the same but is not
 * signed). Lemon Squeezy documents no event id, so the id is built from what
 * its retries and resends repeat: `<event_name>:<data.type>:<data.id>` (parts
 * that are absent left out).
 */
export const EventEnvelope = Schema.transformOrFail(Resource, Schema.Struct({ id: Schema.String, type: Schema.String }), {
  strict: true,
  decode: ({ data, meta }) =>
    ParseResult.succeed({
      id: [meta.event_name, data?.type, data?.id].filter((part) => part !== undefined && part !== "").join(":"),
      type: meta.event_name
    }),
  encode: (envelope, _, ast) => ParseResult.fail(new ParseResult.Forbidden(ast, envelope, "envelopes are only decoded"))
})

/** Read first: only a paid order needs the rest. */
export const OrderStatus = Schema.Struct({
  data: Schema.Struct({ attributes: Schema.Struct({ status: Schema.String }) })
})

/** `meta.custom_data`: what the checkout was created with, free-form JSON. */
export const CustomData = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/** A paid order: the fields its fulfilment needs. */
export const PaidOrder = Schema.Struct({
  id: Schema.NonEmptyString,
  attributes: Schema.Struct({
    user_email: Schema.String,
    /** In cents of `currency`, tax and discounts included. */
    total: Schema.Int,
    currency: Schema.NonEmptyString,
    first_order_item: Schema.optional(Schema.NullOr(Schema.Struct({
      product_id: Schema.optional(Schema.NullOr(Schema.Union(Schema.Int, Schema.String))),
      variant_id: Schema.optional(Schema.NullOr(Schema.Union(Schema.Int, Schema.String)))
    })))
  })
})
/** A decoded paid order. */
export type PaidOrder = typeof PaidOrder.Type

/** An `order_created` event carrying a paid order. */
export const OrderCreatedEvent = Schema.Struct({
  meta: Schema.Struct({
    custom_data: Schema.optional(Schema.NullOr(CustomData)),
    test_mode: Schema.optional(Schema.Boolean)
  }),
  data: PaidOrder
})
/** A decoded `order_created` event. */
export type OrderCreatedEvent = typeof OrderCreatedEvent.Type
