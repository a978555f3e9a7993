import { describe, expect, it } from "@effect/vitest"
import { boundedCall, boundedEffect } from "@hookgate/core/mail"
import { Context, Deferred, Duration, Effect, Exit, Fiber, Option, Ref, TestClock } from "effect"

const TIMEOUT = Duration.seconds(10)

/** A promise settled from the outside. */
const controlled = <A>() => {
  let resolve!: (value: A) => void
  let reject!: (error: unknown) => void
  const promise = new Promise<A>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

const call = <A>(run: () => Promise<A>) =>
  boundedCall({
    try: run,
    catch: (error) => `failed: ${String(error)}`,
    timeout: TIMEOUT,
    onTimeout: () => "timed out"
  })

describe("boundedCall", () => {
  it.effect("answers the promise's value, its rejection through `catch`, and a synchronous throw alike", () =>
    Effect.gen(function*() {
      expect(yield* call(async () => 42)).toBe(42)
      expect(yield* Effect.flip(call(() => Promise.reject(new Error("no"))))).toBe("failed: Error: no")
      expect(yield* Effect.flip(call(() => {
        throw new Error("at once")
      }))).toBe("failed: Error: at once")
    }))

  it.effect("fails with `onTimeout` once the fiber's Clock passes the timeout, and ignores a later answer", () =>
    Effect.gen(function*() {
      const pending = controlled<number>()
      const fiber = yield* Effect.fork(call(() => pending.promise))
      yield* TestClock.adjust(Duration.subtract(TIMEOUT, Duration.millis(1)))
      expect(Option.isNone(yield* Fiber.poll(fiber))).toBe(true)
      yield* TestClock.adjust(Duration.millis(1))
      // Settled by the test clock alone: a real timer of 10 s would not have fired yet.
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
      expect(yield* Fiber.poll(fiber)).toEqual(Option.some(Exit.fail("timed out")))
      pending.resolve(1)
      yield* Effect.promise(() => pending.promise)
      expect(yield* Fiber.await(fiber)).toEqual(Exit.fail("timed out"))
    }))

  it.effect("an answer before the timeout wins, and the timer then fires nothing", () =>
    Effect.gen(function*() {
      const pending = controlled<number>()
      const fiber = yield* Effect.fork(call(() => pending.promise))
      yield* TestClock.adjust(Duration.seconds(1))
      pending.resolve(7)
      expect(yield* Fiber.join(fiber)).toBe(7)
      yield* TestClock.adjust(TIMEOUT)
      expect(yield* Fiber.await(fiber)).toEqual(Exit.succeed(7))
    }))

  it.live("on the live clock too: no answer within the timeout fails, an answer within it wins", () =>
    Effect.gen(function*() {
      const bounded = <A>(run: () => Promise<A>) =>
        boundedCall({ try: run, catch: String, timeout: Duration.millis(30), onTimeout: () => "timed out" })
      expect(yield* Effect.flip(bounded(() => new Promise<never>(() => {})))).toBe("timed out")
      expect(yield* bounded(() => new Promise((resolve) => setTimeout(() => resolve("answered"), 5)))).toBe("answered")
    }))

  it.effect("interrupting it stops the wait: neither the answer nor the timer resumes it", () =>
    Effect.gen(function*() {
      const pending = controlled<number>()
      const started = yield* Deferred.make<void>()
      const fiber = yield* Effect.fork(call(() => {
        Deferred.unsafeDone(started, Exit.void)
        return pending.promise
      }))
      yield* Deferred.await(started)
      yield* Fiber.interrupt(fiber)
      pending.resolve(1)
      yield* Effect.promise(() => pending.promise)
      yield* TestClock.adjust(TIMEOUT)
      expect(Exit.isInterrupted(yield* Fiber.await(fiber))).toBe(true)
    }))
})

class Greeting extends Context.Tag("test/Greeting")<Greeting, string>() {}

const bounded = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  boundedEffect(effect, { timeout: TIMEOUT, onTimeout: () => "timed out" as const })

/** A bounded effect forked: it waits on `gate`, counting its starts and its interruptions. */
const forkGated = Effect.gen(function*() {
  const gate = yield* Deferred.make<number>()
  const started = yield* Ref.make(0)
  const interrupted = yield* Ref.make(0)
  const gated = Ref.update(started, (n) => n + 1).pipe(
    Effect.zipRight(Deferred.await(gate)),
    Effect.onInterrupt(() => Ref.update(interrupted, (n) => n + 1))
  )
  const fiber = yield* Effect.fork(bounded(gated))
  return { fiber, gate, interrupted, started }
})

describe("boundedEffect", () => {
  it.effect("answers the effect's value and its failure, with the caller's services", () =>
    Effect.gen(function*() {
      expect(yield* bounded(Effect.succeed(42))).toBe(42)
      expect(yield* Effect.flip(bounded(Effect.fail("no")))).toBe("no")
      expect(yield* bounded(Greeting).pipe(Effect.provideService(Greeting, "hello"))).toBe("hello")
      expect(yield* Effect.exit(bounded(Effect.die("boom")))).toEqual(Exit.die("boom"))
    }))

  it.effect("fails with `onTimeout` once the fiber's Clock passes the timeout, interrupting the effect first", () =>
    Effect.gen(function*() {
      const { fiber, gate, interrupted, started } = yield* forkGated
      yield* TestClock.adjust(Duration.subtract(TIMEOUT, Duration.millis(1)))
      expect(Option.isNone(yield* Fiber.poll(fiber))).toBe(true)
      expect(yield* Ref.get(started)).toBe(1)
      yield* TestClock.adjust(Duration.millis(1))
      expect(yield* Fiber.await(fiber)).toEqual(Exit.fail("timed out"))
      expect(yield* Ref.get(interrupted)).toBe(1)
      // A late answer changes nothing.
      yield* Deferred.succeed(gate, 1)
      expect(yield* Fiber.await(fiber)).toEqual(Exit.fail("timed out"))
    }))

  it.effect("an answer before the timeout wins, and the timer then fires nothing", () =>
    Effect.gen(function*() {
      const { fiber, gate, interrupted } = yield* forkGated
      yield* TestClock.adjust(Duration.seconds(1))
      yield* Deferred.succeed(gate, 7)
      expect(yield* Fiber.join(fiber)).toBe(7)
      yield* TestClock.adjust(TIMEOUT)
      expect(yield* Fiber.await(fiber)).toEqual(Exit.succeed(7))
      expect(yield* Ref.get(interrupted)).toBe(0)
    }))

  it.effect("sleeps inside the effect run on the caller's Clock", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(bounded(Effect.as(Effect.sleep(Duration.seconds(3)), "slept")))
      yield* TestClock.adjust(Duration.seconds(3))
      expect(yield* Fiber.join(fiber)).toBe("slept")
    }))

  it.live("on the live clock too: no answer within the timeout fails, an answer within it wins", () =>
    Effect.gen(function*() {
      const live = <A>(effect: Effect.Effect<A>) =>
        boundedEffect(effect, { timeout: Duration.millis(30), onTimeout: () => "timed out" })
      expect(yield* Effect.flip(live(Effect.never))).toBe("timed out")
      expect(yield* live(Effect.as(Effect.sleep(Duration.millis(5)), "answered"))).toBe("answered")
    }))

  it.effect("interrupting the caller interrupts the effect and awaits it; the timer then resumes nothing", () =>
    Effect.gen(function*() {
      const { fiber, interrupted, started } = yield* forkGated
      yield* TestClock.adjust(Duration.seconds(1))
      expect(yield* Ref.get(started)).toBe(1)
      yield* Fiber.interrupt(fiber)
      expect(yield* Ref.get(interrupted)).toBe(1)
      yield* TestClock.adjust(TIMEOUT)
      expect(Exit.isInterrupted(yield* Fiber.await(fiber))).toBe(true)
    }))

  it.effect("answers as Effect.timeoutFail does, for each way an effect can end", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<Effect.Effect<string, string>> = [
        Effect.succeed("now"),
        Effect.fail("failed"),
        Effect.as(Effect.sleep(Duration.seconds(1)), "in time"),
        Effect.zipRight(Effect.sleep(Duration.seconds(2)), Effect.fail("failed in time")),
        Effect.as(Effect.sleep(Duration.seconds(20)), "too late"),
        Effect.never
      ]
      for (const effect of cases) {
        const ours = yield* Effect.fork(Effect.exit(bounded(effect)))
        const theirs = yield* Effect.fork(Effect.exit(
          Effect.timeoutFail(effect, { duration: TIMEOUT, onTimeout: () => "timed out" as const })
        ))
        yield* TestClock.adjust(Duration.seconds(30))
        expect(yield* Fiber.join(ours)).toEqual(yield* Fiber.join(theirs))
      }
    }))
})
