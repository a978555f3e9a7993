import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Runtime from "effect/Runtime"

/** Work deferred past the answer. */
export interface BackgroundShape {
  /** Runs `effect` after the invocation's answer is ready, kept alive by `ctx.waitUntil`. */
  readonly defer: (effect: Effect.Effect<void>) => Effect.Effect<void>
}

/**
 * Work that may outlive the response. One per invocation (request, cron run):
 * deferred effects are collected while the handler runs and handed to
 * `ctx.waitUntil` once it has answered, so they never delay the answer and
 * never race the handler's own writes.
 */
export class Background extends Context.Tag("@hookgate/cloudflare/Background")<Background, BackgroundShape>() {}

/** A collector for one invocation: the service, and `flush` to start what was deferred. */
export const makeBackground = () => {
  const pending: Array<Effect.Effect<void>> = []
  const service: BackgroundShape = {
    defer: (effect) => Effect.sync(() => void pending.push(effect))
  }
  /** Starts the deferred work on `runtime`; undefined when nothing was deferred. */
  const flush = <R>(runtime: Runtime.Runtime<R>): Promise<void> | undefined =>
    pending.length === 0 ? undefined : Runtime.runPromise(runtime)(
      Effect.forEach(pending.splice(0), (effect) =>
        Effect.catchAllCause(effect, (cause) => Effect.logError("deferred work failed", cause)), {
        concurrency: "unbounded",
        discard: true
      })
    )
  return { service, flush }
}
