import { describe, expect, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Exit, Fiber, Option, TestClock } from "effect"
import { boundedCall } from "../src/internal/bounded-call.js"

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
