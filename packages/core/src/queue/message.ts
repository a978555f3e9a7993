import * as Schema from "effect/Schema"

/**
 * A queue message's record in the message ledger, keyed by a stable message
 * key (the producer's message id, or the operation's natural key such as
 * `order-8812-charge`). `pending`: not yet done (or being done under a lease);
 * `completed`: the effect ran and its completion was recorded.
 */
export const MessageStatus = Schema.Literal("pending", "completed")
export type MessageStatus = typeof MessageStatus.Type

/** A message key's row in the ledger: pending or completed, its attempts and lease. */
export class MessageRecord extends Schema.Class<MessageRecord>("MessageRecord")({
  key: Schema.String,
  status: MessageStatus,
  leaseToken: Schema.NullOr(Schema.String),
  leaseExpiresAt: Schema.NullOr(Schema.Number),
  /** Runs that failed (and released their lease). */
  attempts: Schema.Int,
  lastError: Schema.NullOr(Schema.String),
  /** Leases taken: runs started. */
  runs: Schema.Int,
  /** Deliveries answered without running the effect (already done, or running elsewhere). */
  duplicates: Schema.Int,
  createdAt: Schema.Number,
  updatedAt: Schema.Number,
  completedAt: Schema.NullOr(Schema.Number)
}) {}

/** A message a queue gave up on (retries exhausted, or a body no handler can read), kept for the operator. */
export class DeadLetter extends Schema.Class<DeadLetter>("DeadLetter")({
  queue: Schema.String,
  messageId: Schema.String,
  /** The body as JSON text, exactly as it arrived. */
  body: Schema.String,
  attempts: Schema.Int,
  receivedAt: Schema.Number
}) {}
