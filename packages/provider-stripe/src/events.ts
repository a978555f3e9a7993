import * as Schema from "effect/Schema"

/**
 * The parts of Stripe's events hookgate reads. Structs ignore fields they do not
 * name, so fields Stripe adds later decode as before.
 */

/** Every event: enough to identify it (`id`, `type`). */
export const EventEnvelope = Schema.Struct({
  id: Schema.NonEmptyString,
  type: Schema.NonEmptyString
})

/** The Checkout Session events that can pay for an order. */
export const PAYING_EVENT_TYPES: ReadonlySet<string> = new Set([
  "checkout.session.completed",
  "checkout.session.async_payment_succeeded"
])

/** `payment_status` values of a completed session that mean the order is paid for. */
export const PAID_STATUSES: ReadonlySet<string> = new Set(["paid", "no_payment_required"])

const dataObject = <A, I>(object: Schema.Schema<A, I>) => Schema.Struct({ data: Schema.Struct({ object }) })

/** Read first: whether a completed session is paid decides whether the rest matters. */
export const CheckoutSessionStatus = dataObject(Schema.Struct({ payment_status: Schema.String }))

const Metadata = Schema.Record({ key: Schema.String, value: Schema.String })

/** A Checkout Session that pays for an order: the fields its fulfilment needs. */
export const PaidCheckoutSession = Schema.Struct({
  id: Schema.NonEmptyString,
  amount_total: Schema.Int,
  currency: Schema.NonEmptyString,
  customer_details: Schema.optional(Schema.NullOr(Schema.Struct({ email: Schema.optional(Schema.NullOr(Schema.String)) }))),
  /** Set when the session was created with a known email; the fallback when `customer_details.email` is absent. */
  customer_email: Schema.optional(Schema.NullOr(Schema.String)),
  metadata: Schema.optional(Schema.NullOr(Metadata))
})
/** A decoded paid Checkout Session. */
export type PaidCheckoutSession = typeof PaidCheckoutSession.Type

/** An event carrying a paid Checkout Session as `data.object`. */
export const PaidCheckoutSessionEvent = dataObject(PaidCheckoutSession)
