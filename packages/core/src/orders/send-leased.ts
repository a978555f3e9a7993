import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import { headerProblem, SendReceipt } from "../mail/email.js"
import { type MailerError, type Misconfigured, Rejected, retryAfterOf, Unknown } from "../mail/errors.js"
import { MailerCircuit } from "../mail/circuit.js"
import { boundSend, retryTransient } from "../mail/send-policy.js"
import { Metrics } from "../observability/metrics.js"
import { step, stepEvent } from "../internal/spans.js"
import { Lease, type Leased } from "./lease.js"
import { Mailer } from "../mail/mailer.js"
import { OrderStore } from "./order-store.js"
import { Renderer } from "./renderer.js"
import { backoffDelay, RetryPolicy } from "./retry-policy.js"
import { attemptAlert, makeAlert, raiseAlert } from "../alerts/raise.js"
import { orderIdempotencyKey } from "../mail/idempotency-key.js"
import { Outcome } from "./outcome.js"

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
    if (Option.isSome(held)) return yield* recordHeld(leased, held.value.error, held.value.nextProbeAt)
    const renderer = yield* Renderer
    const policy = yield* RetryPolicy
    const idempotencyKey = orderIdempotencyKey(leased.order.key)

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
      step("send", { orderKey: leased.order.key, mailer: mailer.name })
    )

    // The send itself may be interrupted (the client went away, a timeout); recording
    // its result under the lease may not, or the lease would only free itself on expiry.
    return yield* Effect.uninterruptibleMask((restore) =>
      Effect.flatMap(Effect.exit(restore(attempt)), (exit) =>
        Exit.isSuccess(exit)
          ? Effect.zipRight(closeCircuit(circuit.close, mailer.name), recordSent(leased, exit.value, mailer.honoursIdempotencyKeys))
          : recordFailure(leased, failureOf(exit.cause, mailer.name), mailer))
    )
  })

const failureOf = (cause: Cause.Cause<MailerError>, mailer: string): MailerError =>
  Option.getOrElse(
    Cause.failureOption(cause),
    () =>
      new Unknown({
        mailer,
        detail: Cause.isInterruptedOnly(cause) ? "the send was interrupted" : "the mailer failed unexpectedly"
      })
  )

export const closeCircuit = (close: Effect.Effect<boolean>, mailer: string) =>
  Effect.flatMap(close, (wasOpen) =>
    wasOpen
      ? Effect.logWarning("the mailer accepts sends again: held orders go out with the sweep").pipe(
        Effect.annotateLogs({ mailer })
      )
      : Effect.void)

/**
 * A `Misconfigured` answer: the account, not the order, is at fault. The breaker
 * opens; the owner hears of it through a log at ERROR and a stored alert (which
 * the email alerter refuses: it would go through this very mailer). Campaign batches
 * trip it the same way.
 */
export const tripCircuit = (error: Misconfigured) =>
  Effect.gen(function*() {
    const circuit = yield* MailerCircuit
    const tripped = yield* circuit.trip(error)
    if (tripped.opened) {
      const now = yield* Clock.currentTimeMillis
      yield* Effect.logError("the mailer is misconfigured: sending stops until a probe succeeds").pipe(
        Effect.annotateLogs({
          mailer: error.mailer,
          errorClass: error._tag,
          code: error.code,
          detail: error.detail,
          nextProbeAt: new Date(tripped.nextProbeAt).toISOString()
        })
      )
      const day = new Date(now).toISOString().slice(0, 10)
      yield* raiseAlert(makeAlert({
        id: `mailer_misconfigured:${error.mailer}:${error.code}:${day}`,
        kind: "mailer_misconfigured",
        orderKey: null,
        message: `${error.message}. Orders are held (not counted) and sent once a probe succeeds; ` +
          "fix the mailer's settings (API key, sending domain, base URL)"
      }, now))
    }
    return tripped.nextProbeAt
  })

/** Gives the lease back with the attempt not counted, due again at the breaker's next probe. */
const recordHeld = (leased: Leased, error: Misconfigured, nextAttemptAt: number) =>
  Effect.gen(function*() {
    const lease = yield* Lease
    const key = leased.order.key
    const now = yield* Clock.currentTimeMillis
    const released = yield* lease.release(key, leased.token, {
      now,
      error: error.message,
      attempts: leased.order.attempts,
      status: "pending",
      nextAttemptAt,
      uncertain: false,
      alert: Option.none()
    })
    if (!released) {
      yield* noteLeaseLost(key)
      return widen(Outcome.InProgress({ orderKey: key }))
    }
    return widen(Outcome.Held({ orderKey: key, error: error.message, nextAttemptAt }))
  }).pipe(stepEvent("record_held"))

const noteLeaseLost = (key: string) =>
  Effect.gen(function*() {
    yield* Metrics.leaseLost
    yield* Effect.logWarning("a sender finished after its lease was taken over").pipe(Effect.annotateLogs({ orderKey: key }))
    const store = yield* OrderStore
    yield* Effect.catchAll(store.noteLeaseLost(key), (error) => Effect.logError("could not count a lost lease", error))
  })

const recordSent = (leased: Leased, receipt: SendReceipt, mailerHonoursKeys: boolean) =>
  Effect.gen(function*() {
    const lease = yield* Lease
    const key = leased.order.key
    yield* Metrics.send("accepted")
    const now = yield* Clock.currentTimeMillis
    const completed = yield* Effect.either(lease.complete(key, leased.token, receipt, { now, mailerHonoursKeys }))
    if (completed._tag === "Left") {
      // Accepted but unmarked: the lease expires, a later sender resends with the same key.
      // Never answer `sent` for it: the provider is told to retry (503 unavailable).
      yield* Effect.logError("email accepted but the sent marker could not be written", completed.left)
      return yield* completed.left
    } else if (Option.isNone(completed.right)) {
      yield* noteLeaseLost(key)
    } else if (completed.right.value.possibleDuplicate) {
      yield* Metrics.possibleDuplicate
      yield* raiseAlert(makeAlert({
        id: `possible_duplicate:${key}:${leased.token}`,
        kind: "possible_duplicate",
        orderKey: key,
        message: `order ${key} was sent after an uncertain attempt by a mailer that ignores idempotency keys: ` +
          "the buyer may have two emails"
      }, now))
    }
    return widen(Outcome.Sent({ orderKey: key, messageId: receipt.messageId }))
  }).pipe(stepEvent("record_sent"))

const recordFailure = (leased: Leased, error: MailerError, mailer: { readonly honoursIdempotencyKeys: boolean }) =>
  error._tag === "Misconfigured"
    ? Effect.flatMap(tripCircuit(error), (nextProbeAt) => recordHeld(leased, error, nextProbeAt))
    : error._tag === "Rejected" && error.keyAlreadyUsed === true && leased.order.uncertain
    ? recordSentEarlier(leased, error, mailer.honoursIdempotencyKeys)
    : recordCountedFailure(leased, error)

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
    const now = yield* Clock.currentTimeMillis
    const receipt = new SendReceipt({ mailer: error.mailer, messageId: "(accepted by an earlier attempt)", acceptedAt: now })
    return yield* recordSent(leased, receipt, mailerHonoursKeys)
  })

const recordCountedFailure = (leased: Leased, error: Exclude<MailerError, Misconfigured>) =>
  Effect.gen(function*() {
    const lease = yield* Lease
    const policy = yield* RetryPolicy
    const key = leased.order.key
    const now = yield* Clock.currentTimeMillis
    const attempts = leased.order.attempts + 1
    const status = error._tag === "Rejected" ? "failed" : attempts >= policy.maxAttempts ? "capped" : "pending"
    const delay = Duration.max(yield* backoffDelay(policy, attempts), retryAfterOf(error))
    // Whole milliseconds: a jittered delay is fractional, and the stores keep BIGINT epoch ms.
    const nextAttemptAt = now + Math.ceil(Duration.toMillis(delay))
    const alert = status === "pending" ? Option.none() : Option.some(makeAlert({
      id: `${status}:${key}:${leased.token}`,
      kind: status,
      orderKey: key,
      message: status === "capped"
        ? `order ${key} reached the cap of ${policy.maxAttempts} attempts; last error: ${error.message}`
        : `order ${key} was rejected by the mailer and will not be retried: ${error.message}`
    }, now))

    const released = yield* lease.release(key, leased.token, {
      now,
      error: error.message,
      attempts,
      status,
      nextAttemptAt,
      uncertain: error._tag === "Unknown",
      alert
    })
    if (!released) {
      yield* noteLeaseLost(key)
      return widen(Outcome.InProgress({ orderKey: key }))
    }
    if (Option.isSome(alert)) yield* attemptAlert(alert.value)
    if (error._tag === "Transient" && error.alert === true) {
      const day = new Date(now).toISOString().slice(0, 10)
      yield* raiseAlert(makeAlert({
        id: `mailer_quota:${error.mailer}:${day}`,
        kind: "mailer_quota",
        orderKey: null,
        message: `${error.mailer} refuses sends for now: ${error.detail}`
      }, now))
    }
    switch (status) {
      case "pending":
        return widen(Outcome.Retry({ orderKey: key, error: error.message, nextAttemptAt }))
      case "capped":
        return widen(Outcome.Capped({ orderKey: key }))
      case "failed":
        return widen(Outcome.Failed({ orderKey: key, error: error.message }))
    }
  }).pipe(stepEvent("record_failure", { error: error._tag }))
