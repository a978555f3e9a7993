import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"

/** What `boundedCall` runs and how its outcomes become errors. */
export interface BoundedCallOptions<A, E> {
  /** Starts the call (the binding's promise). */
  readonly try: () => Promise<A>
  /** What a rejection (or a synchronous throw of `try`) becomes. */
  readonly catch: (error: unknown) => E
  readonly timeout: Duration.Duration
  /** What the call becomes when it has not settled within `timeout`. */
  readonly onTimeout: () => E
}

// The clock every runtime starts with: its `sleep` is a `setTimeout`.
const liveClock = Effect.runSync(Effect.clock)
// What JS timers can wait; Effect's clock treats a longer sleep as never ending, and so does this.
const MAX_TIMER_MILLIS = 2 ** 31 - 1

/**
 * Starts a timer of `clock` that calls `fire` after `duration`; answers its cancel.
 * On Effect's default clock that is a `setTimeout`, as its `sleep` is; on another
 * (a `TestClock`) its `sleep` runs on a fiber of its own.
 */
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

/**
 * One promise, awaited for at most `timeout` of the fiber's `Clock` (a `TestClock`
 * moves it too), failing with `onTimeout()` after that; interrupting the effect
 * stops waiting. `Effect.timeoutFail` does the same for any effect by racing it
 * against a sleep, two child fibers per call; for a promise one timer is enough,
 * cancelled as soon as the promise settles. A settlement after the timeout is ignored.
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
      const cancel = startTimer(clock, options.timeout, () => settle(Effect.fail(options.onTimeout())))
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
