import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import { dual } from "effect/Function"
import * as Runtime from "effect/Runtime"

/**
 * A mailer's call bounded by a timeout on one timer of the fiber's `Clock`.
 * `Effect.timeoutFail` races the call against a sleep: two child fibers and a
 * fiber's timer per call, about three times what a webhook's send costs
 * around its HTTP request. Here a promise needs no fiber at all (`boundedCall`)
 * and an effect one (`boundedEffect`); on Effect's default clock the timer is a
 * `setTimeout`, as its `sleep` is; under a `TestClock` it is the test clock's
 * sleep on a fiber of its own, so tests move it with `TestClock.adjust`.
 */

// The clock every runtime starts with: its `sleep` is a `setTimeout`.
const liveClock = Effect.runSync(Effect.clock)
// What JS timers can wait; Effect's clock treats a longer sleep as never ending, and so does this.
const MAX_TIMER_MILLIS = 2 ** 31 - 1

/** Starts a timer of `clock` that calls `fire` after `duration`; answers its cancel. */
const startTimer = (clock: Clock.Clock, duration: Duration.Duration, fire: () => void): () => void => {
  if (clock === liveClock) {
    const millis = Duration.toMillis(duration)
    if (millis > MAX_TIMER_MILLIS) return () => {}
    const handle = setTimeout(fire, millis)
    return () => clearTimeout(handle)
  }
  const timer = Effect.runFork(clock.sleep(duration))
  timer.addObserver((exit) => {
    if (Exit.isSuccess(exit)) fire()
  })
  return () => timer.unsafeInterruptAsFork(FiberId.none)
}

/** What `boundedCall` runs and how its outcomes become errors. */
export interface BoundedCallOptions<A, E> {
  /** Starts the call (e.g. a binding's promise). */
  readonly try: () => Promise<A>
  /** What a rejection (or a synchronous throw of `try`) becomes. */
  readonly catch: (error: unknown) => E
  readonly timeout: Duration.DurationInput
  /** What the call becomes when it has not settled within `timeout`. */
  readonly onTimeout: () => E
}

/**
 * One promise, awaited for at most `timeout` of the fiber's `Clock`, failing
 * with `onTimeout()` after that; interrupting the effect stops waiting. The
 * timer is cancelled as soon as the promise settles; a settlement after the
 * timeout is ignored.
 */
export const boundedCall = <A, E>(options: BoundedCallOptions<A, E>): Effect.Effect<A, E> =>
  Effect.clockWith((clock) =>
    Effect.async<A, E>((resume) => {
      let settled = false
      const settle = (effect: Effect.Effect<A, E>) => {
        if (settled) return
        settled = true
        cancel()
        resume(effect)
      }
      const cancel = startTimer(clock, Duration.decode(options.timeout), () => settle(Effect.fail(options.onTimeout())))
      try {
        options.try().then(
          (value) => settle(Effect.succeed(value)),
          (error: unknown) => settle(Effect.fail(options.catch(error)))
        )
      } catch (error) {
        settle(Effect.fail(options.catch(error)))
      }
      return Effect.sync(() => {
        settled = true
        cancel()
      })
    })
  )

/** How `boundedEffect` bounds its effect. */
export interface BoundedEffectOptions<E> {
  readonly timeout: Duration.DurationInput
  /** What the effect becomes when it has not ended within `timeout` (it is interrupted first). */
  readonly onTimeout: () => E
}

/**
 * `effect`, ended with `onTimeout()` once `timeout` of the fiber's `Clock` has
 * passed, as `Effect.timeoutFail` ends it, at the cost of one fiber and one
 * timer: the effect runs on a fiber started at once with the caller's context
 * and fiber refs (a `TestClock` included); the caller waits for whichever comes
 * first, its exit or the timer. On the timeout the effect is interrupted (an
 * HTTP call aborts its request) and awaited, then `onTimeout()` fails; an
 * answer after it is ignored. Interrupting the caller interrupts the effect and
 * awaits it. Unlike `timeoutFail`, fiber refs the effect sets stay on its fiber.
 */
export const boundedEffect: {
  <E2>(options: BoundedEffectOptions<E2>): <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | E2, R>
  <A, E, R, E2>(effect: Effect.Effect<A, E, R>, options: BoundedEffectOptions<E2>): Effect.Effect<A, E | E2, R>
} = dual(
  2,
  <A, E, R, E2>(effect: Effect.Effect<A, E, R>, options: BoundedEffectOptions<E2>): Effect.Effect<A, E | E2, R> => {
    const timeout = Duration.decode(options.timeout)
    return Effect.withFiberRuntime<A, E | E2, R>((caller, status) => {
      const clock = Context.get(caller.currentDefaultServices, Clock.Clock)
      // Started inside the registration, so there is no moment when the caller could be
      // interrupted with the fiber running and nobody to interrupt it.
      return Effect.async<A, E | E2, R>((resume) => {
        const runtime = Runtime.make({
          context: caller.currentContext as Context.Context<R>,
          runtimeFlags: status.runtimeFlags,
          fiberRefs: caller.getFiberRefs()
        })
        let done = false
        let cancelTimer = () => {}
        const call = Runtime.runFork(runtime)(effect)
        call.addObserver((exit) => {
          if (done) return
          done = true
          cancelTimer()
          resume(exit)
        })
        if (!done) {
          cancelTimer = startTimer(clock, timeout, () => {
            if (done) return
            done = true
            call.unsafeInterruptAsFork(caller.id())
            resume(Effect.zipRight(Fiber.await(call), Effect.fail(options.onTimeout())))
          })
        }
        return Effect.suspend(() => {
          if (done) return Effect.void
          done = true
          cancelTimer()
          return Fiber.interrupt(call)
        })
      })
    })
  }
)
