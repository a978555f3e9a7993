import * as Effect from "effect/Effect"

/**
 * A span on a pipeline step. No stack trace capture: it costs an `Error` per
 * span on the hot path, and the span names already say where we are.
 */
export const step = (name: string, attributes?: Record<string, unknown>) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.withSpan(effect, `hookgate.${name}`, { captureStackTrace: false, ...(attributes ? { attributes } : {}) })
