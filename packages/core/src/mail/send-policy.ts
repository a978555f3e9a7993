import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import { identity } from "effect/Function"
import type { RetryPolicyShape } from "../kernel/retry-policy.js"
import { type MailerError, retryAfterOf, Unknown } from "./errors.js"
import type { MailerShape } from "./mailer.js"
import { retryFailed } from "../internal/retry-failed.js"

/** The parts of the `RetryPolicy` that govern one send. */
export type SendPolicy = Pick<RetryPolicyShape, "inRequest" | "maxInRequestWait" | "sendTimeout">

/** The in-request schedule, never shorter than the `retry-after` the mailer asked for. */
const honouringRetryAfter = (schedule: Schedule.Schedule<unknown, MailerError>) =>
  Schedule.intersect(schedule, Schedule.identity<MailerError>().pipe(Schedule.addDelay(retryAfterOf)))

/**
 * Retries a send's `Transient` failures in-request, on the policy's schedule
 * and never sooner than the mailer's `retry-after`. A `retry-after` longer than
 * `maxInRequestWait` is not waited out: the failure is answered at once, for
 * the durable backoff (orders) or the queue (campaigns) to take. The schedule
 * is stepped only once a send has failed: a first-time success builds nothing.
 */
export const retryTransient = (policy: SendPolicy) => <A, R>(send: Effect.Effect<A, MailerError, R>) =>
  retryFailed(
    () => honouringRetryAfter(policy.inRequest),
    (error) => error._tag === "Transient" && Duration.lessThanOrEqualTo(retryAfterOf(error), policy.maxInRequestWait)
  )(send)

/**
 * Bounds a send (with its retries) by the policy's `sendTimeout`, ending it
 * `Unknown`; a mailer with a `callTimeout` bounds its own calls, and gets no
 * timer of its own (this one costs two fibers per send). Not `boundedEffect`:
 * its fiber starts on the scheduler, later than `timeoutFail`'s race starts the
 * send, so of the recipients a campaign sends at once, those after a first
 * failure were interrupted before they reached the mailer (the campaign circuit
 * conformance cases count those calls).
 */
export const boundSend = (policy: SendPolicy, mailer: MailerShape) =>
<A, E, R>(send: Effect.Effect<A, E, R>): Effect.Effect<A, E | Unknown, R> =>
  mailer.callTimeout === undefined
    ? Effect.timeoutFail(send, {
      duration: policy.sendTimeout,
      onTimeout: () => new Unknown({ mailer: mailer.name, detail: "no answer before the send timeout" })
    })
    : identity(send)

/**
 * The one send policy of orders and campaigns: `Transient` failures retried
 * in-request honouring `retry-after` (`retryTransient`), the whole bounded by
 * the mailer's `callTimeout` or the policy's `sendTimeout` (`boundSend`).
 */
export const sendWithPolicy = (policy: SendPolicy, mailer: MailerShape) =>
<A, R>(send: Effect.Effect<A, MailerError, R>): Effect.Effect<A, MailerError, R> =>
  boundSend(policy, mailer)(retryTransient(policy)(send))
