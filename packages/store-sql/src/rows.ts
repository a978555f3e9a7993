import { EventReceipt, Fulfilment, Order } from "@hookgate/core"
import { Alert } from "@hookgate/core/alerts"
import * as Schema from "effect/Schema"

/**
 * Row codecs. Drivers disagree on numbers (Postgres returns BIGINT as text) and
 * booleans (stored as 0/1), so integers decode from either a number or a numeric string.
 */
const SqlInt = Schema.Union(Schema.Number, Schema.NumberFromString)
const SqlNullableInt = Schema.NullOr(SqlInt)
const SqlBool = Schema.transform(SqlInt, Schema.Boolean, {
  strict: true,
  decode: (n) => n !== 0,
  encode: (b) => (b ? 1 : 0)
})

export const OrderRow = Schema.Struct({
  order_key: Schema.String,
  provider: Schema.String,
  event_id: Schema.String,
  event_type: Schema.String,
  email: Schema.String,
  product: Schema.NullOr(Schema.String),
  amount: SqlInt,
  currency: Schema.String,
  metadata: Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.String })),
  payload_hash: Schema.String,
  status: Order.fields.status,
  attempts: SqlInt,
  next_attempt_at: SqlInt,
  last_error: Schema.NullOr(Schema.String),
  lease_token: Schema.NullOr(Schema.String),
  lease_expires_at: SqlNullableInt,
  uncertain: SqlBool,
  message_id: Schema.NullOr(Schema.String),
  sent_at: SqlNullableInt,
  duplicates_prevented: SqlInt,
  possible_duplicates: SqlInt,
  leases_lost: SqlInt,
  created_at: SqlInt,
  updated_at: SqlInt
})

/** A stored row as the core's `Order`. */
export const decodeOrder = (row: unknown): Order => {
  const r = Schema.decodeUnknownSync(OrderRow)(row)
  return new Order({
    key: r.order_key,
    provider: r.provider,
    eventId: r.event_id,
    eventType: r.event_type,
    fulfilment: new Fulfilment({
      orderKey: r.order_key,
      email: r.email,
      product: r.product,
      amount: r.amount,
      currency: r.currency,
      metadata: r.metadata
    }, true), // the row codec already validated every field
    payloadHash: r.payload_hash,
    status: r.status,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at,
    lastError: r.last_error,
    leaseToken: r.lease_token,
    leaseExpiresAt: r.lease_expires_at,
    uncertain: r.uncertain,
    messageId: r.message_id,
    sentAt: r.sent_at,
    duplicatesPrevented: r.duplicates_prevented,
    possibleDuplicates: r.possible_duplicates,
    leasesLost: r.leases_lost,
    createdAt: r.created_at,
    updatedAt: r.updated_at
  }, true)
}

const ReceiptRow = Schema.Struct({
  provider: Schema.String,
  event_id: Schema.String,
  event_type: Schema.String,
  order_key: Schema.NullOr(Schema.String),
  outcome: EventReceipt.fields.outcome,
  received_at: SqlInt,
  deliveries: SqlInt,
  detail: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  object_id: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null })
})

export const decodeReceipt = (row: unknown) => {
  const r = Schema.decodeUnknownSync(ReceiptRow)(row)
  return Object.assign(
    new EventReceipt({
      provider: r.provider,
      eventId: r.event_id,
      eventType: r.event_type,
      orderKey: r.order_key,
      outcome: r.outcome,
      receivedAt: r.received_at,
      detail: r.detail,
      objectId: r.object_id
    }),
    { deliveries: r.deliveries }
  )
}

const AlertRow = Schema.Struct({
  alert_id: Schema.String,
  kind: Alert.fields.kind,
  order_key: Schema.NullOr(Schema.String),
  message: Schema.String,
  created_at: SqlInt,
  delivered_at: SqlNullableInt,
  delivery_error: Schema.NullOr(Schema.String),
  attempts: SqlInt,
  next_attempt_at: SqlNullableInt
})

export const decodeAlert = (row: unknown): Alert => {
  const r = Schema.decodeUnknownSync(AlertRow)(row)
  return new Alert({
    id: r.alert_id,
    kind: r.kind,
    orderKey: r.order_key,
    message: r.message,
    createdAt: r.created_at,
    deliveredAt: r.delivered_at,
    deliveryError: r.delivery_error,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at
  })
}

export const StatsRow = Schema.Struct({
  pending: SqlInt,
  sent: SqlInt,
  failed: SqlInt,
  capped: SqlInt,
  duplicates_prevented: SqlNullableInt,
  possible_duplicates: SqlNullableInt,
  leases_lost: SqlNullableInt,
  alerts: SqlInt,
  receipts: SqlInt
})
