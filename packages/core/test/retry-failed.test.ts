import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as fc from "effect/FastCheck"
import * as Schedule from "effect/Schedule"
import { retryFailed } from "../src/internal/retry-failed.js"

// retryFailed is Effect.retry({ schedule, while }) with the schedule built only after a
// first retryable failure. The two must agree on every run: the answer, and how many
// times the effect ran.

interface Failure {
  readonly code: number
  readonly retryable: boolean
}
type Step = { readonly ok: true; readonly value: number } | ({ readonly ok: false } & Failure)

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ ok: fc.constant(true as const), value: fc.integer({ min: 0, max: 9 }) }),
  fc.record({ ok: fc.constant(false as const), code: fc.integer({ min: 0, max: 9 }), retryable: fc.boolean() })
)

/** An effect that answers the scripted steps in turn (success after the script ends), counting its runs. */
const scripted = (steps: ReadonlyArray<Step>) => {
  let runs = 0
  const effect = Effect.suspend(() => {
    const next = steps[runs++]
    if (next === undefined) return Effect.succeed(-1)
    return next.ok ? Effect.succeed(next.value) : Effect.fail<Failure>({ code: next.code, retryable: next.retryable })
  })
  return { effect, runs: () => runs }
}

// A schedule that reads its input: at most `recurs` retries, and only while the code is below `limit`.
const scheduleOf = (recurs: number, limit: number) => () =>
  Schedule.recurs(recurs).pipe(Schedule.intersect(Schedule.recurWhile((error: Failure) => error.code < limit)))

describe("retryFailed", () => {
  it("agrees with Effect.retry({ schedule, while }) on the answer and the number of runs (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { maxLength: 8 }),
        fc.integer({ min: 0, max: 5 }),
        fc.integer({ min: 0, max: 10 }),
        async (steps, recurs, limit) => {
          const schedule = scheduleOf(recurs, limit)
          const fast = scripted(steps)
          const general = scripted(steps)
          const fastExit = await Effect.runPromiseExit(retryFailed(schedule, (e: Failure) => e.retryable)(fast.effect))
          const generalExit = await Effect.runPromiseExit(
            Effect.retry(general.effect, { schedule: schedule(), while: (e) => e.retryable })
          )
          expect(fastExit).toEqual(generalExit)
          expect(fast.runs()).toBe(general.runs())
        }
      ),
      { numRuns: 2_000, seed: 20261202 }
    )
  })

  it.effect("builds no schedule when the first run succeeds or fails for good", () =>
    Effect.gen(function*() {
      let built = 0
      const schedule = () => {
        built++
        return Schedule.recurs(3)
      }
      expect(yield* retryFailed(schedule, () => true)(Effect.succeed(1))).toBe(1)
      expect(Exit.isFailure(yield* Effect.exit(retryFailed(schedule, () => false)(Effect.fail("no"))))).toBe(true)
      expect(built).toBe(0)
      expect(Exit.isFailure(yield* Effect.exit(retryFailed(schedule, () => true)(Effect.fail("again"))))).toBe(true)
      expect(built).toBe(1)
    }))
})
