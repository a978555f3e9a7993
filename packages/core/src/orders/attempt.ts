import * as Schema from "effect/Schema"

/**
 * What one send attempt of an order came to: `sent`; `retry` (failed, due again later),
 * `capped` or `failed` (the order's state after it); `held` (not sent: the mailer's
 * circuit was open, the attempt not counted); `lease_lost` (the sender finished after
 * another had taken its lease over: its result was not recorded on the order);
 * `unknown`: a value this release does not know, read from a row a newer release wrote.
 */
export const AttemptOutcome = Schema.Literal("sent", "retry", "capped", "failed", "held", "lease_lost", "unknown")
export type AttemptOutcome = typeof AttemptOutcome.Type

/** The longest `detail` an attempt keeps (an error message cut there, with an ellipsis). */
export const ATTEMPT_DETAIL_MAX = 500

/** An attempt's error message or message id, cut to `ATTEMPT_DETAIL_MAX` characters. */
export const attemptDetail = (text: string | null): string | null =>
  text === null || text.length <= ATTEMPT_DETAIL_MAX ? text : `${text.slice(0, ATTEMPT_DETAIL_MAX - 1)}…`

/**
 * What the sender hands the store with the write that records an attempt's end
 * (`Lease.complete`, `Lease.release`, `OrderStore.noteLeaseLost`); the store keeps it
 * as a row of the order's attempt history in the same atomic step as that write.
 */
export interface AttemptNote {
  /** The attempt's number: the order's counted attempts before it, plus one. */
  readonly number: number
  /** When its lease was taken (epoch ms). */
  readonly startedAt: number
  readonly outcome: Exclude<AttemptOutcome, "unknown">
  /** The mailer error's class (`Transient`, `Rejected`, `Unknown`, `Misconfigured`), or null when sent. */
  readonly errorClass: string | null
  /** The error's message, or the mailer's message id when sent (cut: `attemptDetail`). */
  readonly detail: string | null
}

/** One row of an order's attempt history (`OrderStore.attempts`). The lease token is never shown. */
export class Attempt extends Schema.Class<Attempt>("Attempt")({
  orderKey: Schema.String,
  number: Schema.Int,
  outcome: AttemptOutcome,
  errorClass: Schema.NullOr(Schema.String),
  detail: Schema.NullOr(Schema.String),
  startedAt: Schema.Number,
  recordedAt: Schema.Number
}) {}
