import { buildInStep, consoleJsonLogger, RetryPolicy } from "@hookgate/core"
import { Alerter, AlertStore } from "@hookgate/core/alerts"
import { checkKeyWindow, type KeyWindowExceeded, Mailer, MailerCircuit } from "@hookgate/core/mail"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as HashSet from "effect/HashSet"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import { deferredAlerter } from "./deferred-alerter.js"
import { configProviderFromEnv, WorkerEnv } from "./env.js"

type Env = Readonly<Record<string, unknown>>
type Needs = Mailer | Alerter | AlertStore

/**
 * The runtime's layer for one `env`, built as ONE layer step around the user's
 * layer: the JSON logger and the config provider over `env` (both kept by the
 * runtime), `WorkerEnv` for the user's layer, the key-window check, a
 * `MailerCircuit` (the layer's own wins, when it provides one) and the deferred
 * alerter. Each `Layer.provide`, `merge`, `map` or `tap` is a memoized step of
 * its own when a layer is built (some 85 Effect operations each, all run on a
 * fresh isolate's first request): composed of those, this came to some 20 steps.
 */
export const isolateLayer = <A, E>(
  layer: Layer.Layer<A | Needs, E, WorkerEnv>,
  env: Env,
  jsonLogs: boolean
): Layer.Layer<A | Needs | MailerCircuit, E | KeyWindowExceeded> =>
  Layer.scopedContext(Effect.gen(function*() {
    if (jsonLogs) {
      // What `Logger.json` does (with core's faster JSON logger, the same lines), for the build and the runtime after it.
      yield* Effect.locallyScopedWith(
        FiberRef.currentLoggers,
        (loggers) => HashSet.add(HashSet.remove(loggers, Logger.defaultLogger), consoleJsonLogger)
      )
    }
    // What `Layer.setConfigProvider` does: `Config` reads `env`'s vars and secrets, in the build and in requests.
    yield* Effect.withConfigProviderScoped(configProviderFromEnv(env))
    const circuit = yield* MailerCircuit.make()
    const built = yield* buildInStep(layer).pipe(
      Effect.provideService(WorkerEnv, env)
    )
    // A retry policy whose attempts could outlast the mailer's idempotency-key window is refused at build.
    yield* checkKeyWindow(Context.get(built, RetryPolicy), Context.get(built, Mailer))
    const context = Context.merge(Context.make(MailerCircuit, circuit), built)
    return Context.add(
      context,
      Alerter,
      deferredAlerter(Context.get(context, Alerter), Context.get(context, AlertStore))
    )
  }))
