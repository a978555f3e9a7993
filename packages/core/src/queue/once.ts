import * as EpochMillis from "../kernel/EpochMillis.js"
import * as Cause from "effect/Cause"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Metrics from "../observability/Metrics.js"
import { spanWhenTraced } from "../kernel/spans.js"
import { MessageLedger } from "./message-ledger.js"
import { leaseTerms, lost, owned, underLease } from "../kernel/lease-protocol.js"
import { RetryPolicy } from "../kernel/retry-policy.js"

/** What `once` did with one delivery. */
export type OnceResult<A> = Data.TaggedEnum<{
  /** This delivery ran the effect and recorded it complete. */
  Ran: { readonly value: A }
  /** The effect had already run: nothing was done (acknowledge the message). */
  AlreadyDone: { readonly completedAt: number }
  /** Another delivery is running it under a lease until `until` (retry later). */
  InProgress: { readonly until: number }
}>
interface OnceResultDefinition extends Data.TaggedEnum.WithGenerics<1> {
  readonly taggedEnum: OnceResult<this["A"]>
}
/** Constructors and matchers of `OnceResult`. */
export const OnceResult = Data.taggedEnum<OnceResultDefinition>()

/** The effect outlived its time inside the lease; its lease is released and the message retried. */
export class OnceTimeout extends Data.TaggedError("OnceTimeout")<{
  readonly messageKey: string
  readonly timeoutMillis: number
}> {
  override get message() {
    return `message ${this.messageKey}: the effect did not finish within ${this.timeoutMillis} ms`
  }
}

/** How long a run may hold its key's lease. */
export interface OnceOptions {
  /** How long one delivery holds the message (default: `RetryPolicy.leaseFor`, 5 minutes). */
  readonly leaseFor?: Duration.DurationInput
  /**
   * The effect is interrupted after this long (default: half the lease), so it
   * cannot still be running when its lease expires and another delivery takes it.
   */
  readonly timeout?: Duration.DurationInput
}

// Half the lease unless given: the effect cannot still run when its lease expires.
const timeoutOf = (options: OnceOptions) =>
  Effect.map(RetryPolicy, (policy) => {
    const leaseFor = Duration.decode(options.leaseFor ?? policy.leaseFor)
    return { leaseFor, timeout: options.timeout === undefined ? Duration.times(leaseFor, 0.5) : Duration.decode(options.timeout) }
  })

const describe = (cause: unknown): string => {
  if (cause instanceof Error) return cause.message
  try {
    return JSON.stringify(cause) ?? String(cause)
  } catch {
    return String(cause)
  }
}

/**
 * Runs `effect` once per `messageKey`, whatever the number of deliveries:
 * the lease-and-complete protocol of orders, keyed by the message key.
 *
 * - A delivery after the effect was recorded complete answers `AlreadyDone`
 *   without running it.
 * - Concurrent deliveries race for one lease; the others answer `InProgress`.
 * - A failing effect releases its lease (counting the attempt) and fails: the
 *   key stays pending, so the next delivery runs it again. Nothing is lost, unlike
 *   "insert the id, then do the work", which loses the work when it fails after the insert.
 *
 * The one remaining window: the effect succeeded but its completion could not
 * be written. The lease then expires and a later delivery runs the effect again.
 */
export const once = <A, E, R>(messageKey: string, effect: Effect.Effect<A, E, R>, options: OnceOptions = {}) =>
  Effect.gen(function*() {
    const ledger = yield* MessageLedger
    const { leaseFor, timeout } = yield* timeoutOf(options)
    const terms = yield* leaseTerms(leaseFor)
    const acquired = yield* ledger.acquire(messageKey, terms)
    if (acquired._tag === "Completed") {
      yield* Metrics.message("duplicate")
      return OnceResult.AlreadyDone({ completedAt: acquired.completedAt }) as OnceResult<A>
    }
    if (acquired._tag === "InProgress") {
      yield* Metrics.message("in_progress")
      return OnceResult.InProgress({ until: acquired.until }) as OnceResult<A>
    }
    const bounded = Effect.timeoutFail(effect, {
      duration: timeout,
      onTimeout: () => new OnceTimeout({ messageKey, timeoutMillis: Duration.toMillis(timeout) })
    })
    const ended = yield* underLease(
      bounded,
      (exit) => Exit.isSuccess(exit) ? recordComplete(messageKey, terms.token, exit) : recordFailure(messageKey, terms.token, exit),
      { what: "a message's effect", annotations: { messageKey } }
    )
    return yield* Exit.map(ended, (value) => OnceResult.Ran({ value }) as OnceResult<A>)
  }).pipe(spanWhenTraced("once", { messageKey }))

const recordComplete = <A, E>(key: string, token: string, exit: Exit.Success<A, E>) =>
  Effect.gen(function*() {
    const ledger = yield* MessageLedger
    const completed = yield* ledger.complete(key, token, { now: yield* EpochMillis.now }).pipe(
      // The effect ran but is not marked: the lease expires and a later delivery runs it again.
      Effect.tapError((error) => Effect.logError("the effect ran but its completion could not be recorded", error)),
      Effect.tapError(() => Metrics.message("unrecorded"))
    )
    yield* Metrics.message("ran")
    return completed ? owned<Exit.Exit<A, E>>(exit) : lost<Exit.Exit<A, E>>(exit)
  })

// The failure is answered whatever the release found: the key stays pending either way.
const recordFailure = <A, E>(key: string, token: string, exit: Exit.Failure<A, E>) =>
  Effect.gen(function*() {
    const ledger = yield* MessageLedger
    yield* Metrics.message("failed")
    const error = Option.match(Cause.failureOption(exit.cause), {
      onNone: () => Cause.isInterruptedOnly(exit.cause) ? "interrupted" : "died: " + Cause.pretty(exit.cause).slice(0, 500),
      onSome: describe
    })
    yield* ledger.release(key, token, { now: yield* EpochMillis.now, error }).pipe(
      Effect.catchAll((cause) => Effect.logError("a failed run's lease could not be released (it expires on its own)", cause))
    )
    return owned<Exit.Exit<A, E>>(exit)
  })
