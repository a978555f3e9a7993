import { Cause, Clock, Duration, Effect, Exit, identity, Option, Schedule } from "effect"
import type { SendReceipt } from "../domain/email.js"
import { type MailerError, Rejected, retryAfterOf, Unknown } from "../errors.js"
import { Metrics } from "../observability/metrics.js"
import { step } from "../observability/spans.js"
import { Lease, type Leased } from "../services/lease.js"
import { Mailer } from "../services/mailer.js"
import { OrderStore } from "../services/order-store.js"
import { Renderer } from "../services/renderer.js"
import { backoffDelay, RetryPolicy } from "../services/retry-policy.js"
import { attemptAlert, makeAlert, raiseAlert } from "./alerts.js"
import { orderIdempotencyKey } from "./idempotency-key.js"
import { Outcome } from "./outcome.js"

// Each branch answers the whole Outcome union, not the narrow tag it builds.
const widen = (outcome: Outcome): Outcome => outcome

const sendOutcome = { Transient: "transient", Rejected: "rejected", Unknown: "unknown" } as const

/** The in-request schedule, never shorter than the `retry-after` the mailer asked for. */
const honouringRetryAfter = (schedule: Schedule.Schedule<unknown, MailerError>) =>
  Schedule.intersect(schedule, Schedule.identity<MailerError>().pipe(Schedule.addDelay(retryAfterOf)))

/**
 * Holding a lease: render, send with the order's idempotency key (retrying
 * `Transient` errors in-request), then record the result under the token.
 */
export const sendLeased = (leased: Leased) =>
  Effect.gen(function*() {
    const mailer = yield* Mailer
    const renderer = yield* Renderer
    const policy = yield* RetryPolicy
    const idempotencyKey = yield* orderIdempotencyKey(leased.order.key)

    const attempt = renderer.render(leased.order).pipe(
      Effect.mapError((error) => new Rejected({ mailer: "renderer", detail: error.detail })),
      Effect.flatMap((email) =>
        mailer.send(email, { idempotencyKey }).pipe(
          Effect.tapError((error) => Metrics.send(sendOutcome[error._tag])),
          Effect.retry({
            schedule: honouringRetryAfter(policy.inRequest),
            while: (error) =>
              error._tag === "Transient" && Duration.lessThanOrEqualTo(retryAfterOf(error), policy.maxInRequestWait)
          })
        )
      ),
      // A timer per send costs a fiber and a timeout; a mailer that bounds its own calls needs none.
      mailer.callTimeout === undefined
        ? Effect.timeoutFail({
          duration: policy.sendTimeout,
          onTimeout: () => new Unknown({ mailer: mailer.name, detail: "no answer before the send timeout" })
        })
        : identity,
      step("send", { orderKey: leased.order.key, mailer: mailer.name })
    )

    // The send itself may be interrupted (the client went away, a timeout); recording
    // its result under the lease may not, or the lease would only free itself on expiry.
    return yield* Effect.uninterruptibleMask((restore) =>
      Effect.flatMap(Effect.exit(restore(attempt)), (exit) =>
        Exit.isSuccess(exit)
          ? recordSent(leased, exit.value, mailer.honoursIdempotencyKeys)
          : recordFailure(leased, failureOf(exit.cause, mailer.name)))
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
      yield* Effect.logError("email accepted but the sent marker could not be written", completed.left)
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
  }).pipe(step("record_sent"))

const recordFailure = (leased: Leased, error: MailerError) =>
  Effect.gen(function*() {
    const lease = yield* Lease
    const policy = yield* RetryPolicy
    const key = leased.order.key
    const now = yield* Clock.currentTimeMillis
    const attempts = leased.order.attempts + 1
    const status = error._tag === "Rejected" ? "failed" : attempts >= policy.maxAttempts ? "capped" : "pending"
    const delay = Duration.max(yield* backoffDelay(policy, attempts), retryAfterOf(error))
    const nextAttemptAt = Math.round(now + Duration.toMillis(delay)) // integer epoch ms: jittered delays are fractional
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
  }).pipe(step("record_failure", { error: error._tag }))
