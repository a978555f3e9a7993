import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type { OutgoingEmail, SendReceipt } from "./email.js"
import type { MailerError } from "./errors.js"

/** What every send carries besides the email. */
export interface SendOptions {
  /** Derived from the order key alone: identical for every sender and every retry. */
  readonly idempotencyKey: string
}

/** A mail provider: sends one email (or a batch), mapping every failure to `MailerError`. */
export interface MailerShape {
  readonly name: string
  /** Whether a repeated key within the provider's window is answered without a second email. */
  readonly honoursIdempotencyKeys: boolean
  /**
   * How long the provider remembers a key (Resend: 24 hours): a key used again
   * after it is a fresh send. Absent when keys are not honoured, or never forgotten.
   * A `RetryPolicy` whose attempts can span longer is refused (`checkKeyWindow`).
   */
  readonly idempotencyKeyWindow?: Duration.Duration
  /**
   * Every call of this mailer ends (as `Unknown` if need be) within this long.
   * When set, the pipeline trusts it and runs no timer of its own around the
   * send; when absent, the pipeline bounds each send by `RetryPolicy.sendTimeout`.
   * Either way a stuck call cannot outlive its lease.
   */
  readonly callTimeout?: Duration.Duration
  readonly send: (email: OutgoingEmail, options: SendOptions) => Effect.Effect<SendReceipt, MailerError>
  /** Optional batch send (one key for the whole batch); answers one receipt per email, in order. */
  readonly sendBatch?: (
    emails: ReadonlyArray<OutgoingEmail>,
    options: SendOptions
  ) => Effect.Effect<ReadonlyArray<SendReceipt>, MailerError>
}

/** The mail provider the pipeline and campaigns send through (Resend, Cloudflare Email, an outbox). */
export class Mailer extends Context.Tag("@hookgate/core/Mailer")<Mailer, MailerShape>() {}
