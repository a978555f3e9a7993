import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import { attemptAlert, newAlert, raiseAlert } from "../alerts/raise.js"
import * as EpochMillis from "../kernel/EpochMillis.js"
import { type LeaseSubject, lost, owned, underLease } from "../kernel/lease-protocol.js"
import { backoffDelay, RetryPolicy } from "../kernel/retry-policy.js"
import { spanWhenTraced, stepEvent } from "../kernel/spans.js"
import { MailerCircuit } from "../mail/circuit.js"
import { closeCircuit, tripCircuit } from "../mail/circuit-actions.js"
import { headerProblem, SendReceipt } from "../mail/email.js"
import { type MailerError, type Misconfigured, Rejected, retryAfterOf, Unknown } from "../mail/errors.js"
import { orderIdempotencyKey } from "../mail/idempotency-key.js"
import { Mailer } from "../mail/mailer.js"
import { boundSend, retryTransient } from "../mail/send-policy.js"
import * as Metrics from "../observability/Metrics.js"
import { type AttemptNote, attemptDetail } from "./attempt.js"
import type { Leased } from "./lease.js"
import { Lease } from "./lease.js"
import { OrderStore } from "./order-store.js"
import { Outcome } from "./outcome.js"
import { Renderer } from "./renderer.js"

// Each branch answers the whole Outcome union, not the narrow tag it builds.
const widen = (outcome: Outcome): Outcome => outcome

const sendOutcome = {
  Transient: "transient",
  Rejected: "rejected",
  Unknown: "unknown",
  Misconfigured: "misconfigured"
} as const

/**
 * Holding a lease: render, send with the order's idempotency key under the
 * send policy shared with campaigns (`mail/send-policy.ts`: `Transient` retried
 * in-request honouring `retry-after`, the whole bounded), then record the
 * result under the token. While the `MailerCircuit` is open (the mailer is
 * misconfigured) nothing is sent: the order is held, its attempt not counted.
 */
export const sendLeased = (leased: Leased) =>
  Effect.gen(function*() {
    const mailer = yield* Mailer
    const circuit = yield* MailerCircuit
    const held = yield* circuit.admit
    const subject = leaseSubject(leased.order.key)
    if (Option.isSome(held)) {
      return yield* underLease(Effect.void, () => recordHeld(leased, held.value.error, held.value.nextProbeAt), subject)
    }
    const renderer = yield* Renderer
    const policy = yield* RetryPolicy
    const idempotencyKey = yield* orderIdempotencyKey(leased.order.key)

    const attempt = renderer.render(leased.order).pipe(
      Effect.mapError((error) => new Rejected({ mailer: "renderer", detail: error.detail })),
      Effect.flatMap((email) => {
        // One rule for header-bound values, before any mailer (see `headerProblem`).
        const problem = headerProblem(email)
        return problem !== undefined
          ? Effect.fail(new Rejected({ mailer: "renderer", detail: problem }))
          : mailer.send(email, { idempotencyKey }).pipe(
            Effect.tapError((error) => Metrics.send(sendOutcome[error._tag])),
            retryTransient(policy)
          )
      }),
      // The send policy's bound covers the rendering too.
      boundSend(policy, mailer),
      spanWhenTraced("send", { orderKey: leased.order.key, mailer: mailer.name })
    )

    return yield* underLease(attempt, (exit) =>
      Exit.isSuccess(exit)
        ? Effect.zipRight(closeCircuit(circuit.close, mailer.name), recordSent(leased, exit.value, mailer.honoursIdempotencyKeys))
        : recordFailure(leased, failureOf(exit.cause, mailer.name), mailer), subject)
  })

// A sender that lost its lease is also counted on the order's row, with its attempt (`noteLost`).
const leaseSubject = (key: string): LeaseSubject => ({ what: "a sender", annotations: { orderKey: key } })

/** The attempt's row of the order's history, for the write that records its end. */
const attemptNote = (
  leased: Leased,
  outcome: AttemptNote["outcome"],
  error: MailerError | null,
  detail: string | null
): AttemptNote => ({
  number: leased.order.attempts + 1,
  // The lease was taken (stored, or acquired) at the order's last update.
  startedAt: leased.order.updatedAt,
  outcome,
  errorClass: error === null ? null : error._tag,
  detail: attemptDetail(detail)
})

const lostResult = { sent: "the mailer accepted it", held: "held", retry: "failed", capped: "failed", failed: "failed", lease_lost: "lost" }

/** A record that found the lease taken over: counted on the order, the attempt kept as `lease_lost`, saying how it ended. */
const noteLost = <A>(leased: Leased, note: AttemptNote, now: number, value: A) =>
  Effect.flatMap(OrderStore, (store) =>
    store.noteLeaseLost(leased.order.key, {
      token: leased.token,
      now,
      attempt: {
        ...note,
        outcome: "lease_lost",
        detail: attemptDetail(`${lostResult[note.outcome]}${note.detail === null ? "" : `: ${note.detail}`}`)
      }
    }).pipe(
      Effect.catchAll((error) => Effect.logError("could not count a lost lease", error)),
      Effect.as(lost(value))
    ))

const failureOf = (cause: Cause.Cause<MailerError>, mailer: string): MailerError =>
  Option.getOrElse(
    Cause.failureOption(cause),
    () =>
      new Unknown({
        mailer,
        detail: Cause.isInterruptedOnly(cause) ? "the send was interrupted" : "the mailer failed unexpectedly"
      })
  )

/** Gives the lease back with the attempt not counted, due again at the breaker's next probe. */
const recordHeld = (leased: Leased, error: Misconfigured, nextAttemptAt: number) =>
  Effect.gen(function*() {
    const lease = yield* Lease
    const key = leased.order.key
    const now = yield* EpochMillis.now
    const attempt = attemptNote(leased, "held", error, error.message)
    const released = yield* lease.release(key, leased.token, {
      now,
      error: error.message,
      attempts: leased.order.attempts,
      status: "pending",
      nextAttemptAt,
      uncertain: false,
      alert: Option.none(),
      attempt
    })
    if (!released) return yield* noteLost(leased, attempt, now, widen(Outcome.InProgress({ orderKey: key })))
    return owned(widen(Outcome.Held({ orderKey: key, error: error.message, nextAttemptAt })))
  }).pipe(stepEvent("record_held"))

const recordSent = (leased: Leased, receipt: SendReceipt, mailerHonoursKeys: boolean) =>
  Effect.gen(function*() {
    const lease = yield* Lease
    const key = leased.order.key
    yield* Metrics.send("accepted")
    const now = yield* EpochMillis.now
    const attempt = attemptNote(leased, "sent", null, receipt.messageId)
    const completed = yield* Effect.either(lease.complete(key, leased.token, receipt, { now, mailerHonoursKeys, attempt }))
    if (completed._tag === "Left") {
      // Accepted but unmarked: the lease expires, a later sender resends with the same key.
      // Never answer `sent` for it: the provider is told to retry (503 unavailable).
      yield* Effect.logError("email accepted but the sent marker could not be written", completed.left)
      return yield* completed.left
    }
    const sent = widen(Outcome.Sent({ orderKey: key, messageId: receipt.messageId }))
    if (Option.isNone(completed.right)) return yield* noteLost(leased, attempt, now, sent)
    if (completed.right.value.possibleDuplicate) {
      yield* Metrics.possibleDuplicate
      yield* raiseAlert(newAlert({
        id: `possible_duplicate:${key}:${leased.token}`,
        kind: "possible_duplicate",
        orderKey: key,
        message: `order ${key} was sent after an uncertain attempt by a mailer that ignores idempotency keys: ` +
          "the buyer may have two emails"
      }, now))
    }
    return owned(sent)
  }).pipe(stepEvent("record_sent"))

const recordFailure = (leased: Leased, error: MailerError, mailer: { readonly honoursIdempotencyKeys: boolean }) =>
  error._tag === "Misconfigured"
    ? Effect.flatMap(tripCircuit(error), (nextProbeAt) => recordHeld(leased, error, nextProbeAt))
    : error._tag === "Rejected" && error.keyAlreadyUsed === true && leased.order.uncertain
    ? recordSentEarlier(leased, error, mailer.honoursIdempotencyKeys)
    : recordCountedFailure(leased, error, mailer.honoursIdempotencyKeys)

/**
 * The earlier, uncertain attempt was accepted: the mailer refuses this one only because
 * its payload differs under the same key (`HOOKGATE_FROM` or the template changed in
 * between). The buyer has the email, so the order is sent (it stays flagged uncertain),
 * never `failed`.
 */
const recordSentEarlier = (leased: Leased, error: Rejected, mailerHonoursKeys: boolean) =>
  Effect.gen(function*() {
    yield* Effect.logWarning("an earlier uncertain attempt was accepted; this one differed (From or content changed)")
      .pipe(Effect.annotateLogs({ orderKey: leased.order.key, detail: error.detail }))
    const now = yield* EpochMillis.now
    const receipt = new SendReceipt({ mailer: error.mailer, messageId: "(accepted by an earlier attempt)", acceptedAt: now })
    return yield* recordSent(leased, receipt, mailerHonoursKeys)
  })

/**
 * What the capped or failed alert says of the attempts that may have reached the buyer
 * (this one included): the release counts them on the order in the same step.
 */
const mayHaveReached = (uncertainAttempts: number, mailerHonoursKeys: boolean) =>
  uncertainAttempts === 0
    ? ""
    : mailerHonoursKeys
    ? `; ${uncertainAttempts} attempt(s) may have reached the buyer (the mailer honours idempotency keys: at most one email)`
    : `; ${uncertainAttempts} attempt(s) may have reached the buyer: with a mailer that ignores idempotency keys ` +
      `they may have received up to ${uncertainAttempts} email(s); check the mailer's log before requeueing`

const recordCountedFailure = (leased: Leased, error: Exclude<MailerError, Misconfigured>, mailerHonoursKeys: boolean) =>
  Effect.gen(function*() {
    const lease = yield* Lease
    const policy = yield* RetryPolicy
    const key = leased.order.key
    const now = yield* EpochMillis.now
    const attempts = leased.order.attempts + 1
    const status = error._tag === "Rejected" ? "failed" : attempts >= policy.maxAttempts ? "capped" : "pending"
    const delay = Duration.max(yield* backoffDelay(policy, attempts), retryAfterOf(error))
    // Whole milliseconds: a jittered delay is fractional, and the stores keep BIGINT epoch ms.
    const nextAttemptAt = EpochMillis.after(now, delay)
    // The lease holder knows the count: nobody else changes the row while it holds it.
    const uncertainAttempts = leased.order.uncertainAttempts + (error._tag === "Unknown" ? 1 : 0)
    const reached = mayHaveReached(uncertainAttempts, mailerHonoursKeys)
    const alert = status === "pending" ? Option.none() : Option.some(newAlert({
      id: `${status}:${key}:${leased.token}`,
      kind: status,
      orderKey: key,
      message: status === "capped"
        ? `order ${key} reached the cap of ${policy.maxAttempts} attempts; last error: ${error.message}${reached}`
        : `order ${key} was rejected by the mailer and will not be retried: ${error.message}${reached}`
    }, now))

    const attempt = attemptNote(leased, status === "pending" ? "retry" : status, error, error.message)
    const released = yield* lease.release(key, leased.token, {
      now,
      error: error.message,
      attempts,
      status,
      nextAttemptAt,
      uncertain: error._tag === "Unknown",
      alert,
      attempt
    })
    if (!released) return yield* noteLost(leased, attempt, now, widen(Outcome.InProgress({ orderKey: key })))
    if (Option.isSome(alert)) yield* attemptAlert(alert.value)
    if (error._tag === "Transient" && error.alert === true) {
      const day = new Date(now).toISOString().slice(0, 10)
      yield* raiseAlert(newAlert({
        id: `mailer_quota:${error.mailer}:${day}`,
        kind: "mailer_quota",
        orderKey: null,
        message: `${error.mailer} refuses sends for now: ${error.detail}`
      }, now))
    }
    switch (status) {
      case "pending":
        return owned(widen(Outcome.Retry({ orderKey: key, error: error.message, nextAttemptAt })))
      case "capped":
        return owned(widen(Outcome.Capped({ orderKey: key })))
      case "failed":
        return owned(widen(Outcome.Failed({ orderKey: key, error: error.message })))
    }
  }).pipe(stepEvent("record_failure", { error: error._tag }))
