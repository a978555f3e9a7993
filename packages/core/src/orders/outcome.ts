import * as Data from "effect/Data"

/** What happened to one webhook or one delivery attempt. http/contract.ts maps each to a status. */
export type Outcome = Data.TaggedEnum<{
  /** The mailer accepted the email now. */
  Sent: { readonly orderKey: string; readonly messageId: string }
  /** The order was already sent. */
  Duplicate: { readonly orderKey: string }
  /** Another sender holds a fresh lease. */
  InProgress: { readonly orderKey: string }
  /** Verified, but this event type needs no email. */
  Ignored: { readonly eventType: string }
  /** The order is at the attempt cap. */
  Capped: { readonly orderKey: string }
  /** The mailer rejected the email permanently; the operator has been told. */
  Failed: { readonly orderKey: string; readonly error: string }
  /** The send failed and was recorded; the lease is released for a later attempt. */
  Retry: { readonly orderKey: string; readonly error: string; readonly nextAttemptAt: number }
  /**
   * Not sent and not counted: the mailer is misconfigured (`MailerCircuit` open).
   * The order stays pending, due again at the breaker's next probe.
   */
  Held: { readonly orderKey: string; readonly error: string; readonly nextAttemptAt: number }
  /** The sweep found the lease taken or the order no longer due. */
  Skipped: { readonly orderKey: string }
}>

/** Constructors and matchers of `Outcome`. */
export const Outcome = Data.taggedEnum<Outcome>()
