import * as Schema from "effect/Schema"

/**
 * The parts of Paddle Billing's events hookgate reads. Every event is
 * `{ event_id, event_type, occurred_at, notification_id, data }`; structs ignore
 * fields they do not name, so fields Paddle adds later decode as before.
 */

/** Every event, read as its id (`evt_…`, the same for every notification of it) and type. */
export const EventEnvelope = Schema.rename(
  Schema.Struct({ event_id: Schema.NonEmptyString, event_type: Schema.NonEmptyString }),
  { event_id: "id", event_type: "type" }
)

/**
 * The events that pay: `transaction.paid` (payment captured, Paddle still
 * processing) and `transaction.completed` (fully processed). One transaction
 * sends both; both map to the same order, so the second is a duplicate.
 */
export const PAYING_EVENT_TYPES: ReadonlySet<string> = new Set(["transaction.paid", "transaction.completed"])

/** Transaction statuses that mean paid. */
export const PAID_STATUSES: ReadonlySet<string> = new Set(["paid", "completed"])

/** Read first: whether the transaction is paid decides whether the rest matters. */
export const TransactionStatus = Schema.Struct({ data: Schema.Struct({ status: Schema.String }) })

/** An amount in the currency's lowest denomination, as Paddle writes it: a string of digits. */
export const MinorUnits = Schema.compose(
  Schema.String.pipe(Schema.pattern(/^\d{1,15}$/, { message: () => "an amount in minor units (digits only)" })),
  Schema.NumberFromString
)

/** A paid transaction: the fields its fulfilment needs. */
export const PaidTransaction = Schema.Struct({
  id: Schema.NonEmptyString,
  customer_id: Schema.NonEmptyString,
  currency_code: Schema.NonEmptyString,
  custom_data: Schema.optional(Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown }))),
  items: Schema.optional(Schema.Array(Schema.Struct({
    price: Schema.optional(Schema.NullOr(Schema.Struct({ product_id: Schema.optional(Schema.NullOr(Schema.String)) })))
  }))),
  details: Schema.Struct({ totals: Schema.Struct({ grand_total: MinorUnits }) })
})
/** A decoded paid transaction. */
export type PaidTransaction = typeof PaidTransaction.Type

/** A paying event, with the customer's email hookgate fetched beside it (Paddle sends only the customer id). */
export const PaidTransactionWithCustomer = Schema.Struct({
  data: PaidTransaction,
  customer: Schema.Struct({ email: Schema.String })
})
