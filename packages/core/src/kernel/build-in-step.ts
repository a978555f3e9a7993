import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"

/**
 * Builds `layer` inside the layer step that is being built now: in the same memo map
 * (a layer shared with the rest of the build is built once) and the same scope (its
 * finalizers run when the step's do). Every `Layer.provide`, `merge` or `unwrapEffect`
 * is a memoized step of its own, some 85 Effect operations each, all run on a Worker
 * isolate's first request; a library layer that composes its parts inside one
 * `Layer.scopedContext` with this stays one step. Only inside a layer's build: outside
 * one there is no current memo map to share.
 */
export const buildInStep = <A, E, R>(layer: Layer.Layer<A, E, R>): Effect.Effect<Context.Context<A>, E, R | Scope.Scope> =>
  Effect.flatMap(Layer.CurrentMemoMap, (memoMap) =>
    Effect.flatMap(Effect.scope, (scope) => Layer.buildWithMemoMap(layer, memoMap, scope)))
