import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { Alert } from "../alerts/alert.js"
import type { SendReceipt } from "../mail/email.js"
import type { LeaseTerms } from "../kernel/lease-protocol.js"
import type { AttemptNote } from "./attempt.js"
import type { Order } from "./order.js"
import type { StoreUnavailable } from "../kernel/store-errors.js"

/** A lease held on an order: the token proves ownership, the order is its state when leased. */
export interface Leased {
  readonly token: string
  readonly order: Order
}

/** What a sender records when it gives its lease back after a failed send. */
export interface ReleaseFailure {
  readonly now: number
  readonly error: string
  /** The attempts count after this failure (the holder knows it: nobody else may change it). */
  readonly attempts: number
  readonly status: "pending" | "failed" | "capped"
  readonly nextAttemptAt: number
  /** The send ended `Unknown`: the mailer may have accepted it. */
  readonly uncertain: boolean
  /** Stored in the same atomic step as the release, when the release caps or fails the order. */
  readonly alert: Option.Option<Alert>
  /** The attempt's row of the order's history, stored in the same atomic step (the pipeline always gives it). */
  readonly attempt?: AttemptNote | undefined
}

/** Leasing of orders: only the holder of a fresh lease may send; a stale token changes nothing. */
export interface LeaseShape {
  /**
   * Takes the lease of a pending order below the cap whose lease is free or
   * expired (and, with `dueOnly`, whose next attempt is due), under the given
   * terms (a fresh token each time: `leaseTerms`). Taking over an expired,
   * unreleased lease marks the order uncertain: the previous holder may have sent.
   */
  readonly acquire: (
    key: string,
    options: LeaseTerms & {
      readonly maxAttempts: number
      readonly dueOnly: boolean
    }
  ) => Effect.Effect<Option.Option<Leased>, StoreUnavailable>
  /**
   * Marks the order sent, if `token` still holds the lease. `Some` when it did;
   * `possibleDuplicate` is true when the order was uncertain and the mailer does
   * not honour idempotency keys (counted on the order in the same statement).
   * `attempt` is the attempt's row of the order's history, stored in the same atomic
   * step, only if the order was marked (the pipeline always gives it).
   */
  readonly complete: (
    key: string,
    token: string,
    receipt: SendReceipt,
    options: { readonly now: number; readonly mailerHonoursKeys: boolean; readonly attempt?: AttemptNote | undefined }
  ) => Effect.Effect<Option.Option<{ readonly possibleDuplicate: boolean }>, StoreUnavailable>
  /** Records a failed attempt and frees the lease, if `token` still holds it. */
  readonly release: (key: string, token: string, failure: ReleaseFailure) => Effect.Effect<boolean, StoreUnavailable>
}

/** The lease protocol on the order store (one conditional statement per step). */
export class Lease extends Context.Tag("@hookgate/core/Lease")<Lease, LeaseShape>() {}
