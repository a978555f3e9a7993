import * as Schema from "effect/Schema"
import { Fulfilment } from "../kernel/fulfilment.js"

/**
 * `pending`: waiting to be sent (or being sent under a lease);
 * `sent`: the mailer accepted it; `failed`: the mailer rejected it permanently;
 * `capped`: the attempt cap was reached; `unknown`: a status this release does not know,
 * read from a row a newer release wrote (stores decode any such value to it; never stored,
 * never sent, leased or retried by this release).
 */
export const OrderStatus = Schema.Literal("pending", "sent", "failed", "capped", "unknown")
export type OrderStatus = typeof OrderStatus.Type

/** How an order reached hookgate: its verified webhook, or a reconciliation run that pulled it from the provider. */
export const OrderSource = Schema.Literal("webhook", "reconcile")
export type OrderSource = typeof OrderSource.Type

const sourceField = Schema.optionalWith(OrderSource, { default: () => "webhook" as const })

/** An order as it is stored. Times are epoch milliseconds from Effect's Clock. */
export class Order extends Schema.Class<Order>("Order")({
  key: Schema.String,
  provider: Schema.String,
  eventId: Schema.String,
  eventType: Schema.String,
  fulfilment: Fulfilment,
  payloadHash: Schema.String,
  status: OrderStatus,
  attempts: Schema.Int,
  nextAttemptAt: Schema.Number,
  lastError: Schema.NullOr(Schema.String),
  leaseToken: Schema.NullOr(Schema.String),
  leaseExpiresAt: Schema.NullOr(Schema.Number),
  /** A lease expired unreleased, or a send ended `Unknown`: an email may already be out. */
  uncertain: Schema.Boolean,
  /**
   * Attempts that may have reached the buyer without a recorded outcome: each send that
   * ended `Unknown`, and each unreleased lease taken over. The capped alert names them.
   */
  uncertainAttempts: Schema.optionalWith(Schema.Int, { default: () => 0 }),
  messageId: Schema.NullOr(Schema.String),
  sentAt: Schema.NullOr(Schema.Number),
  duplicatesPrevented: Schema.Int,
  possibleDuplicates: Schema.Int,
  leasesLost: Schema.Int,
  createdAt: Schema.Number,
  updatedAt: Schema.Number,
  /** What first stored it: `webhook`, or `reconcile` (no webhook had brought it). */
  source: sourceField
}) {}

/** What the pipeline hands the store for a first write. */
export class NewOrder extends Schema.Class<NewOrder>("NewOrder")({
  provider: Schema.String,
  eventId: Schema.String,
  eventType: Schema.String,
  fulfilment: Fulfilment,
  payloadHash: Schema.String,
  source: sourceField
}) {
  get key(): string {
    return this.fulfilment.orderKey
  }
}

/**
 * The row a new order becomes when first stored: pending, no attempts, due now,
 * leased to `token` until `until`. Stores build it instead of reading the row back.
 * Public because store implementations outside core (`@hookgate/store-sql`) build
 * it; application code has no use for it.
 */
export const newLeasedOrder = (order: NewOrder, lease: { readonly token: string; readonly now: number; readonly until: number }) =>
  new Order({
    key: order.key,
    provider: order.provider,
    eventId: order.eventId,
    eventType: order.eventType,
    fulfilment: order.fulfilment,
    payloadHash: order.payloadHash,
    status: "pending",
    attempts: 0,
    nextAttemptAt: lease.now,
    lastError: null,
    leaseToken: lease.token,
    leaseExpiresAt: lease.until,
    uncertain: false,
    uncertainAttempts: 0,
    messageId: null,
    sentAt: null,
    duplicatesPrevented: 0,
    possibleDuplicates: 0,
    leasesLost: 0,
    createdAt: lease.now,
    updatedAt: lease.now,
    source: order.source
  }, true) // every field comes from an already valid NewOrder

/** What a verified event that did not create an order did; `not_due` is a replay before the backoff allowed a retry. */
export const ReceiptOutcome = Schema.Literal(
  "ignored",
  "duplicate",
  "in_progress",
  "conflict",
  "replayed",
  "not_due",
  /** A verified paying event whose fulfilment could not be decoded (answered 500: the provider retries). */
  "unfulfillable",
  /** A verified paying event whose order id or email broke a rule (control characters, length): 400. */
  "malformed",
  /** An outcome this release does not know, read from a row a newer release wrote. */
  "unknown"
)
export type ReceiptOutcome = typeof ReceiptOutcome.Type

/** Every verified event, kept so replays and ignored events are visible (`GET /admin/orders/:key`). */
export class EventReceipt extends Schema.Class<EventReceipt>("EventReceipt")({
  provider: Schema.String,
  eventId: Schema.String,
  eventType: Schema.String,
  orderKey: Schema.NullOr(Schema.String),
  outcome: ReceiptOutcome,
  receivedAt: Schema.Number,
  /** Why an `unfulfillable` or `malformed` event made no order (the decoding error). */
  detail: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  /** The provider's object id (a Checkout Session, a Creem checkout) where it could be read. */
  objectId: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null })
}) {}

/** The counts `GET /admin/stats` answers. */
export interface StoreStats {
  readonly orders: Readonly<Record<OrderStatus, number>>
  readonly duplicatesPrevented: number
  readonly possibleDuplicates: number
  readonly leasesLost: number
  readonly alerts: number
  /** Stored alerts not delivered yet (still retrying, or given up on): what an operator must still read. */
  readonly alertsUndelivered: number
  readonly receipts: number
}
