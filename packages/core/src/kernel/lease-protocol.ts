import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Metrics from "../observability/Metrics.js"
import * as EpochMillis from "./EpochMillis.js"
import { RetryPolicy } from "./retry-policy.js"

/**
 * The one lease protocol of orders, queue messages and campaign batches: take a
 * lease under fresh terms, run the work (interruptibly), record its end under the
 * token (uninterruptibly), and tell when the token had lost the lease meanwhile.
 * How a lease is taken differs by kind (an order is stored already leased, a
 * message upserted, a batch reserved); its terms are made here, and only here.
 */

/** The terms a lease is taken under: a fresh random token, the time, and when it ends. */
export interface LeaseTerms {
  readonly token: string
  readonly now: number
  readonly until: number
}

/**
 * Terms for a lease taken now, ending `leaseFor` from now (the `RetryPolicy`'s
 * `leaseFor` unless given), every time a whole millisecond.
 */
export const leaseTerms = (leaseFor?: Duration.DurationInput): Effect.Effect<LeaseTerms> =>
  Effect.flatMap(EpochMillis.now, (now) => leaseTermsFrom(now, leaseFor))

/** The same terms from a time already read (`EpochMillis.now`), for a caller that needs it before. */
export const leaseTermsFrom = (now: number, leaseFor?: Duration.DurationInput): Effect.Effect<LeaseTerms> =>
  Effect.map(RetryPolicy, (policy) => ({
    // Random, so a stale holder's token never matches the new owner's.
    token: crypto.randomUUID(),
    now,
    until: EpochMillis.after(now, leaseFor ?? policy.leaseFor)
  }))

/** What recording a leased run's end found: whether the token still held the lease, and the answer. */
export interface Recorded<B> {
  readonly owned: boolean
  readonly value: B
}

/** Recorded while the token held the lease. */
export const owned = <B>(value: B): Recorded<B> => ({ owned: true, value })

/** Recorded too late: another holder had taken the lease over. */
export const lost = <B>(value: B): Recorded<B> => ({ owned: false, value })

/** Who finished too late, for the warning when the lease was lost. */
export interface LeaseSubject<R = never> {
  /** "a sender", "a message's effect", "a campaign batch" */
  readonly what: string
  readonly annotations: Record<string, unknown>
  /** Counted elsewhere too (an order counts its lost leases on its row). */
  readonly note?: Effect.Effect<void, never, R>
}

const leaseLost = <R>(subject: LeaseSubject<R>) =>
  Effect.gen(function*() {
    yield* Metrics.leaseLost
    yield* Effect.logWarning(`${subject.what} finished after its lease was taken over`).pipe(
      Effect.annotateLogs(subject.annotations)
    )
    if (subject.note !== undefined) yield* subject.note
  })

/**
 * Holding a lease: runs `work`, which may be interrupted (a client gone, a
 * timeout), then `record`s its exit, which may not be, or the lease would only
 * free itself on expiry. A record that found the lease lost is counted and
 * logged; its answer is the caller's.
 */
export const underLease = <A, E, R, B, E2, R2, R3 = never>(
  work: Effect.Effect<A, E, R>,
  record: (exit: Exit.Exit<A, E>) => Effect.Effect<Recorded<B>, E2, R2>,
  subject: LeaseSubject<R3>
): Effect.Effect<B, E2, R | R2 | R3> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(Effect.exit(restore(work)), (exit) =>
      Effect.flatMap(record(exit), (recorded) =>
        recorded.owned ? Effect.succeed(recorded.value) : Effect.as(leaseLost(subject), recorded.value))))
