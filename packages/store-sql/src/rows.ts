import { Attempt, EventReceipt, Fulfilment, Order, RunKind, type StoredRun } from "@hookgate/core"
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

/**
 * An enum column read leniently: a value this release does not know (a newer release wrote
 * it, then was rolled back) decodes to `"unknown"` instead of failing the read, so admin
 * routes and the CLI show it as unknown. Migrations only add values; see docs/upgrades.md.
 */
export const KnownOrUnknown = <const L extends readonly [string, ...Array<string>]>(known: Schema.Literal<L>) => {
  const values: ReadonlySet<string> = new Set(known.literals)
  return Schema.transform(Schema.String, known, {
    strict: true,
    decode: (value) => (values.has(value) ? value : "unknown") as L[number],
    encode: (value) => value
  })
}

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
  status: KnownOrUnknown(Order.fields.status),
  attempts: SqlInt,
  next_attempt_at: SqlInt,
  last_error: Schema.NullOr(Schema.String),
  lease_token: Schema.NullOr(Schema.String),
  lease_expires_at: SqlNullableInt,
  uncertain: SqlBool,
  uncertain_attempts: SqlInt,
  message_id: Schema.NullOr(Schema.String),
  sent_at: SqlNullableInt,
  duplicates_prevented: SqlInt,
  possible_duplicates: SqlInt,
  leases_lost: SqlInt,
  created_at: SqlInt,
  updated_at: SqlInt,
  source: Order.fields.source
})

type OrderRowType = typeof OrderRow.Type

// The fast reading of a row the store wrote itself (exported for its property test
// against the codec, test/rows.test.ts): each field checked for the
// type the codec would accept and converted as it would, without building the
// codec's parse tree; `undefined` at the first surprise, which then goes through
// the codec for its error.
const text = (value: unknown): value is string => typeof value === "string"
const integer = (value: unknown): number | undefined =>
  typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value)) ? Number(value) : undefined
const nullableInteger = (value: unknown): number | null | undefined => value === null ? null : integer(value)
const STATUSES: ReadonlySet<unknown> = new Set(Order.fields.status.literals)
const SOURCES: ReadonlySet<unknown> = new Set(["webhook", "reconcile"])
const metadataOf = (value: unknown): Record<string, string> | undefined => {
  if (!text(value)) return undefined
  try {
    const parsed: unknown = JSON.parse(value)
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined
    for (const key in parsed) if (!text((parsed as Record<string, unknown>)[key])) return undefined
    return parsed as Record<string, string>
  } catch {
    return undefined
  }
}
export const readTrusted = (row: unknown): OrderRowType | undefined => {
  if (typeof row !== "object" || row === null) return undefined
  const r = row as Record<string, unknown>
  const ints = {
    amount: integer(r.amount),
    attempts: integer(r.attempts),
    next_attempt_at: integer(r.next_attempt_at),
    uncertain: integer(r.uncertain),
    uncertain_attempts: integer(r.uncertain_attempts),
    duplicates_prevented: integer(r.duplicates_prevented),
    possible_duplicates: integer(r.possible_duplicates),
    leases_lost: integer(r.leases_lost),
    created_at: integer(r.created_at),
    updated_at: integer(r.updated_at)
  }
  const leaseExpiresAt = nullableInteger(r.lease_expires_at)
  const sentAt = nullableInteger(r.sent_at)
  const metadata = metadataOf(r.metadata)
  for (const key in ints) if (ints[key as keyof typeof ints] === undefined) return undefined
  if (
    !text(r.order_key) || !text(r.provider) || !text(r.event_id) || !text(r.event_type) || !text(r.email) ||
    !text(r.currency) || !text(r.payload_hash) || !(r.product === null || text(r.product)) ||
    !(r.last_error === null || text(r.last_error)) || !(r.lease_token === null || text(r.lease_token)) ||
    !(r.message_id === null || text(r.message_id)) || !STATUSES.has(r.status) || !SOURCES.has(r.source) ||
    leaseExpiresAt === undefined || sentAt === undefined || metadata === undefined
  ) return undefined
  return {
    ...(ints as { [K in keyof typeof ints]: number }),
    order_key: r.order_key,
    provider: r.provider,
    event_id: r.event_id,
    event_type: r.event_type,
    email: r.email,
    product: r.product,
    currency: r.currency,
    metadata,
    payload_hash: r.payload_hash,
    status: r.status as OrderRowType["status"],
    last_error: r.last_error,
    lease_token: r.lease_token,
    lease_expires_at: leaseExpiresAt,
    uncertain: ints.uncertain !== 0,
    message_id: r.message_id,
    sent_at: sentAt,
    source: r.source as OrderRowType["source"]
  }
}

/**
 * A stored row as the core's `Order`. The store wrote the row, so it is read
 * with plain checks and trusted constructors; a row that fails them (another
 * writer, a broken migration) goes through the `OrderRow` codec, whose error names the field.
 */
export const decodeOrder = (row: unknown): Order => {
  const r = readTrusted(row) ?? Schema.decodeUnknownSync(OrderRow)(row)
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
    }, true), // checked above, or by the row codec
    payloadHash: r.payload_hash,
    status: r.status,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at,
    lastError: r.last_error,
    leaseToken: r.lease_token,
    leaseExpiresAt: r.lease_expires_at,
    uncertain: r.uncertain,
    uncertainAttempts: r.uncertain_attempts,
    messageId: r.message_id,
    sentAt: r.sent_at,
    duplicatesPrevented: r.duplicates_prevented,
    possibleDuplicates: r.possible_duplicates,
    leasesLost: r.leases_lost,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    source: r.source
  }, true)
}

const ReceiptRow = Schema.Struct({
  provider: Schema.String,
  event_id: Schema.String,
  event_type: Schema.String,
  order_key: Schema.NullOr(Schema.String),
  outcome: KnownOrUnknown(EventReceipt.fields.outcome),
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
  kind: KnownOrUnknown(Alert.fields.kind),
  order_key: Schema.NullOr(Schema.String),
  message: Schema.String,
  created_at: SqlInt,
  delivered_at: SqlNullableInt,
  delivery_error: Schema.NullOr(Schema.String),
  attempts: SqlInt,
  next_attempt_at: SqlNullableInt,
  resolved_at: Schema.optionalWith(SqlNullableInt, { default: () => null }),
  resolution_note: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null })
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
    nextAttemptAt: r.next_attempt_at,
    resolvedAt: r.resolved_at,
    resolutionNote: r.resolution_note
  })
}

export const StatsRow = Schema.Struct({
  pending: SqlInt,
  sent: SqlInt,
  failed: SqlInt,
  capped: SqlInt,
  unknown: SqlInt,
  duplicates_prevented: SqlNullableInt,
  possible_duplicates: SqlNullableInt,
  leases_lost: SqlNullableInt,
  alerts: SqlInt,
  alerts_undelivered: SqlInt,
  receipts: SqlInt
})

const AttemptRow = Schema.Struct({
  order_key: Schema.String,
  attempt: SqlInt,
  outcome: KnownOrUnknown(Attempt.fields.outcome),
  error_class: Schema.NullOr(Schema.String),
  detail: Schema.NullOr(Schema.String),
  started_at: SqlInt,
  recorded_at: SqlInt
})

/** A row of `hookgate_attempts` (the lease token is not read: it is never shown). */
export const decodeAttempt = (row: unknown) => {
  const r = Schema.decodeUnknownSync(AttemptRow)(row)
  return new Attempt({
    orderKey: r.order_key,
    number: r.attempt,
    outcome: r.outcome,
    errorClass: r.error_class,
    detail: r.detail,
    startedAt: r.started_at,
    recordedAt: r.recorded_at
  }, true) // decoded just now
}

const RunRow = Schema.Struct({ kind: RunKind, started_at: SqlInt, finished_at: SqlInt, report: Schema.String })

/** A row of `hookgate_runs`. */
export const decodeRun = (row: unknown): StoredRun => {
  const r = Schema.decodeUnknownSync(RunRow)(row)
  return { kind: r.kind, startedAt: r.started_at, finishedAt: r.finished_at, report: r.report }
}
