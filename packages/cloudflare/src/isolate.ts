import { Effect, Layer, ManagedRuntime, type Runtime } from "effect"

/**
 * The runtime of one isolate: built from `env` on first use (Workers only hand
 * `env` to the handlers), then shared by every request and cron run the isolate
 * serves. A failed build is logged and not kept, so the next invocation tries again.
 */
export const isolateRuntime = <R, E>(
  makeLayer: (env: Readonly<Record<string, unknown>>) => Layer.Layer<R, E>,
  logger: Layer.Layer<never> = Layer.empty
) => {
  let built: Promise<Runtime.Runtime<R>> | undefined
  return (env: Readonly<Record<string, unknown>>): Promise<Runtime.Runtime<R>> => {
    if (built !== undefined) return built
    const managed = ManagedRuntime.make(makeLayer(env))
    built = Effect.runPromise(
      managed.runtimeEffect.pipe(
        Effect.tapErrorCause((cause) =>
          Effect.logError("hookgate: the Worker's layer could not be built", cause).pipe(Effect.provide(logger))
        )
      )
    ).catch((error: unknown) => {
      built = undefined
      void managed.dispose()
      throw error
    })
    return built
  }
}
