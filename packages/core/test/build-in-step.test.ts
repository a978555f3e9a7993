import { describe, expect, it } from "@effect/vitest"
import { buildInStep } from "@hookgate/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

class Counter extends Context.Tag("test/Counter")<Counter, { readonly id: number }>() {}

/** A layer that counts its builds and records when its scope closes. */
const counted = () => {
  const events: Array<string> = []
  let builds = 0
  const layer = Layer.scoped(
    Counter,
    Effect.acquireRelease(Effect.sync(() => ({ id: ++builds })), () => Effect.sync(() => events.push("released")))
  )
  return { layer, events, builds: () => builds }
}

describe("buildInStep", () => {
  it.effect("builds a layer in the current build's memo map: shared with its siblings, built once", () =>
    Effect.gen(function*() {
      const counter = counted()
      // One step that builds the layer twice inside, beside the same layer composed outside.
      const step = Layer.scopedContext(Effect.gen(function*() {
        const first = yield* buildInStep(counter.layer)
        const second = yield* buildInStep(counter.layer)
        expect(Context.get(first, Counter)).toBe(Context.get(second, Counter))
        return Context.empty()
      }))
      const ids = yield* Effect.scoped(Effect.flatMap(Layer.build(Layer.merge(step, counter.layer)), (context) =>
        Effect.succeed(Context.get(context, Counter).id)))
      expect(ids).toBe(1)
      expect(counter.builds()).toBe(1)
      expect(counter.events).toEqual(["released"])
    }))

  it.effect("ties the layer to the step's scope: released when the build's scope closes, not before", () =>
    Effect.gen(function*() {
      const counter = counted()
      const step = Layer.scopedContext(Effect.map(buildInStep(counter.layer), (context) => context))
      yield* Effect.scoped(Effect.gen(function*() {
        const context = yield* Layer.build(step)
        expect(Context.get(context, Counter).id).toBe(1)
        expect(counter.events).toEqual([])
      }))
      expect(counter.events).toEqual(["released"])
    }))
})
