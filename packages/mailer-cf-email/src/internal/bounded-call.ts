import type * as Duration from "effect/Duration"
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

/**
 * One promise, awaited for at most `timeout` of the fiber's `Clock` (a `TestClock`
 * moves it too), failing with `onTimeout()` after that; interrupting the effect
 * stops waiting. `Effect.timeoutFail` does the same for any effect by racing it
 * against a sleep, two child fibers per call; for a promise one timer is enough:
 * the `Clock.sleep` runs on a fiber of its own, interrupted as soon as the promise
 * settles. A settlement after the timeout is ignored.
 */
export const boundedCall = <A, E>(options: BoundedCallOptions<A, E>): Effect.Effect<A, E> =>
  Effect.clockWith((clock) =>
    Effect.async<A, E>((resume) => {
      let settled = false
      const timer = Effect.runFork(clock.sleep(options.timeout))
      const settle = (effect: Effect.Effect<A, E>) => {
        if (settled) return
        settled = true
        timer.unsafeInterruptAsFork(FiberId.none)
        resume(effect)
      }
      timer.addObserver((exit) => {
        if (Exit.isSuccess(exit)) settle(Effect.fail(options.onTimeout()))
      })
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
        timer.unsafeInterruptAsFork(FiberId.none)
      })
    })
  )
