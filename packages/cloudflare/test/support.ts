import { Lease, OrderStore, RetryPolicy } from "@hookgate/core"
import { type Alert, Alerter, AlertFailed, AlertStore } from "@hookgate/core/alerts"
import { Mailer } from "@hookgate/core/mail"
import { Providers } from "@hookgate/core/providers"
import {
  MemoryStore,
  paidEvent,
  ScriptedMailer,
  type ScriptedMailerOptions,
  signTestRequest,
  TEST_SECRET,
  TestProvider,
  TestRenderer
} from "@hookgate/testing"
import { Cloudflare } from "@hookgate/cloudflare"
import { Config, Duration, Effect, Layer, Logger, LogLevel, Redacted, Tracer } from "effect"

export const SECRET_NAME = "TEST_WEBHOOK_SECRET"
export const env = { [SECRET_NAME]: Redacted.value(TEST_SECRET) }

/** An ExecutionContext that keeps what was handed to waitUntil. */
export const executionContext = () => {
  const waiting: Array<Promise<unknown>> = []
  const ctx: Cloudflare.WorkerExecutionContext = { waitUntil: (promise) => void waiting.push(promise) }
  return { ctx, waiting, settle: () => Promise.all(waiting.splice(0)) }
}

export interface HarnessOptions {
  readonly mailer?: ScriptedMailerOptions
  readonly alerterFails?: boolean
  readonly maxAttempts?: number
  /** The alert channel answers only once this promise resolves (a slow channel). */
  readonly alertGate?: Promise<void>
  /** Log as the Worker does by default (JSON lines through console) instead of silently. */
  readonly logs?: boolean
  /** Routes beside the webhook and health routes. */
  readonly router?: Cloudflare.MakeWorkerOptions<unknown>["router"]
  /** Options of the webhook routes (the body limit). */
  readonly webhooks?: Cloudflare.MakeWorkerOptions<unknown>["webhooks"]
  /** A tracer the layer sets (`Layer.setTracer`). */
  readonly tracer?: Tracer.Tracer
  /** The idempotency-key window the mailer declares (Resend's is 24 hours). */
  readonly keyWindow?: Duration.DurationInput
}

/**
 * A Worker on the in-memory store, a scripted mailer and the HMAC test provider
 * (its secret read from `env` through Config), with handles to look inside.
 */
export const harness = (options: HarnessOptions = {}) => {
  const { alertStore, lease, store } = Effect.runSync(MemoryStore.make())
  const mailer = Effect.runSync(ScriptedMailer.make(options.mailer))
  const alerted: Array<Alert> = []
  let builds = 0
  const layer = Layer.mergeAll(
    Layer.succeed(OrderStore, store),
    Layer.succeed(Lease, lease),
    Layer.succeed(AlertStore, alertStore),
    Layer.succeed(Mailer, options.keyWindow === undefined ? mailer : { ...mailer, idempotencyKeyWindow: Duration.decode(options.keyWindow) }),
    Layer.succeed(Alerter, {
      alert: (alert) =>
        Effect.promise(() => options.alertGate ?? Promise.resolve()).pipe(
          Effect.zipRight(Effect.suspend(() => {
            alerted.push(alert)
            return options.alerterFails ? Effect.fail(new AlertFailed({ detail: "channel down" })) : Effect.void
          }))
        )
    }),
    Layer.unwrapEffect(
      Effect.map(Config.redacted(SECRET_NAME), (secret) => Providers.layer(TestProvider.make({ secret })))
    ),
    TestRenderer.layer,
    RetryPolicy.layer({ inRequestBase: 0, ...(options.maxAttempts ? { maxAttempts: options.maxAttempts } : {}) }),
    Layer.effectDiscard(Effect.sync(() => void builds++)),
    Logger.minimumLogLevel(options.logs ? LogLevel.Info : LogLevel.None),
    options.tracer ? Layer.setTracer(options.tracer) : Layer.empty
  )
  const worker = Cloudflare.makeWorker({
    layer,
    jsonLogs: options.logs ?? false,
    ...(options.router ? { router: options.router } : {}),
    ...(options.webhooks ? { webhooks: options.webhooks } : {})
  })
  return { worker, store, alertStore, mailer, alerted, builds: () => builds }
}

/** A signed webhook of the test provider, as a Web Request to the Worker. */
export const webhook = (orderId: string, options: { readonly email?: string } = {}) =>
  Effect.runPromise(
    Effect.map(
      signTestRequest(
        TEST_SECRET,
        paidEvent(`evt_${orderId}`, {
          orderId,
          email: options.email ?? `${orderId}@example.com`,
          amount: 1900,
          currency: "usd"
        })
      ),
      (request) =>
        new Request("https://worker.example/webhooks/test", {
          method: "POST",
          headers: request.headers,
          body: request.body as Uint8Array<ArrayBuffer>
        })
    )
  )

export const json = async (response: Response) => ({ status: response.status, body: await response.json() as Record<string, unknown> })

/** A tracer that records the names of the spans it is asked for (and exports nothing). */
export const recordingTracer = () => {
  const names: Array<string> = []
  const tracer = Tracer.make({
    span: (name, parent, context, links, startTime, kind, options) => {
      names.push(name)
      return Effect.runSync(Effect.map(Effect.tracer, (native) => native.span(name, parent, context, links, startTime, kind, options)))
    },
    context: (f) => f()
  })
  return { names, tracer }
}
