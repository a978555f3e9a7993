import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as Runtime from "effect/Runtime"

/**
 * hookgate's spans, made only when someone can see them. Effect's built-in
 * tracer (the default) exports nowhere, yet each `withSpan` under it costs ~10 µs
 * and a copy of the fiber's context; so with it, or with tracing disabled, these
 * helpers add nothing. Install a tracer (e.g. `@effect/opentelemetry`'s) and
 * every span and event below appears.
 */

// The tracer every runtime starts with (no tracer layer provided).
const builtInTracer = Runtime.runSync(Runtime.defaultRuntime)(Effect.tracer)

/**
 * The one decision "does a span here go anywhere?": a tracer other than Effect's
 * built-in one (which exports nowhere), with tracing enabled. Everything in
 * hookgate that would make a span, or take a slower path to keep a library's
 * spans (a store's direct statements, the Worker's router), asks this.
 */
export const tracingEnabled = (fiber: Fiber.RuntimeFiber<unknown, unknown>): boolean =>
  fiber.currentTracer !== builtInTracer && fiber.getFiberRef(FiberRef.currentTracerEnabled)

/** The same decision for a runtime, asked once (a Worker's isolate runtime). */
export const runtimeTracingEnabled = <R>(runtime: Runtime.Runtime<R>): boolean =>
  Runtime.runSync(runtime)(Effect.tracer) !== builtInTracer &&
  Runtime.runSync(runtime)(FiberRef.get(FiberRef.currentTracerEnabled))

const exporting = tracingEnabled

/**
 * A span `hookgate.<name>` around a unit of work (a webhook, a delivery, a send).
 * No stack trace capture: it costs an `Error` per span, and the names already say where we are.
 */
export const spanWhenTraced = (name: string, attributes?: Record<string, unknown>) => {
  const options = { captureStackTrace: false, ...(attributes ? { attributes } : {}) }
  return <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.withFiberRuntime((fiber) => exporting(fiber) ? Effect.withSpan(effect, `hookgate.${name}`, options) : effect)
}

/**
 * A step inside a span (verify, decode, store, record): an event `hookgate.<name>`
 * on the enclosing span when it ends, with its duration (`durationMs`)
 * and whether it succeeded (`ok`), rather than a span of its own.
 */
export const stepEvent = (name: string, attributes?: Record<string, unknown>) => {
  const eventName = `hookgate.${name}`
  return <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.withFiberRuntime((fiber) => {
      const span = fiber.currentSpan
      if (span === undefined || span._tag !== "Span" || !exporting(fiber)) return effect
      const clock = Context.get(fiber.currentDefaultServices, Clock.Clock)
      const start = clock.unsafeCurrentTimeNanos()
      return Effect.onExit(effect, (exit) =>
        Effect.sync(() => {
          const end = clock.unsafeCurrentTimeNanos()
          span.event(eventName, end, {
            ...attributes,
            durationMs: Number(end - start) / 1e6,
            ok: Exit.isSuccess(exit)
          })
        }))
    })
}

/** Attributes on the enclosing span, when one is exported. */
export const annotateStep = (attributes: Record<string, unknown>): Effect.Effect<void> =>
  Effect.withFiberRuntime((fiber) => {
    const span = fiber.currentSpan
    if (span !== undefined && span._tag === "Span" && exporting(fiber)) {
      for (const key in attributes) span.attribute(key, attributes[key])
    }
    return Effect.void
  })
