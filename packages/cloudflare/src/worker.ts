import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import {
  consoleJsonLogger,
  type Lease,
  type OrderStore,
  reconcile,
  type ReconcileOptions,
  type Renderer,
  runtimeTracingEnabled,
  sweep,
  type SweepOptions
} from "@hookgate/core"
import type { Alerter, AlertStore } from "@hookgate/core/alerts"
import { answerWebhookRequest, type ContractAnswer, readinessRoute, webhookRoutes, type WebhookRoutesOptions } from "@hookgate/core/http"
import type { Mailer } from "@hookgate/core/mail"
import { type Providers } from "@hookgate/core/providers"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { constTrue } from "effect/Function"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Runtime from "effect/Runtime"
import { Background, makeBackground } from "./background.js"
import type { WorkerEnv } from "./env.js"
import { QueueNotConfigured } from "./errors.js"
import { isolateLayer } from "./isolate-layer.js"
import { type HeldRuntime, isolateRuntime } from "./isolate.js"
import { consumeBatch, type QueueConsumer } from "./queue.js"
import type { WorkerExecutionContext, WorkerMessageBatch, WorkerScheduledController } from "./runtime-types.js"

/** What the pipeline needs: the user's layer provides all of it. */
export type WorkerServices = Providers | OrderStore | Lease | AlertStore | Mailer | Alerter | Renderer

/** Options of `makeWorker`. */
export interface MakeWorkerOptions<E, R = never> {
  /**
   * Everything the pipeline needs, built once per isolate from `env`: read
   * bindings with `binding`/`layerD1Store`, vars and secrets with `Config`
   * (`Config.redacted` for secrets). Anything more it provides (`R`: the
   * message ledger, `Campaigns`, …) is there for the queue consumers.
   */
  readonly layer: Layer.Layer<WorkerServices | R, E, WorkerEnv>
  /**
   * A consumer per queue name (as in wrangler.jsonc's `queues.consumers`):
   * `Consumer.handler(...)`, `deadLetterHandler(...)`, `campaignBatches`. A batch
   * from a queue not listed here is refused (`QueueNotConfigured`) and retried.
   */
  readonly queues?: { readonly [queue: string]: QueueConsumer<WorkerServices | R> }
  /** Messages of one batch handled at once (default 4). */
  readonly queueConcurrency?: number
  /** Options of the shared webhook routes (body size limit). */
  readonly webhooks?: WebhookRoutesOptions
  /**
   * Routes served beside the webhook and health routes, which are always kept
   * (`adminRoutes`, your own; they may use anything the layer provides). A route
   * of its own at `POST /webhooks/:provider`, `GET /healthz` or `GET /readyz` is refused.
   */
  readonly router?: HttpRouter.HttpRouter<unknown, WorkerServices | R>
  /**
   * Per cron run (default: 50 orders, 4 at a time). Each order costs two or
   * three D1 queries and one send (a subrequest with Resend): keep it within
   * your plan's limits per invocation.
   */
  readonly sweep?: SweepOptions
  /**
   * After each cron run's sweep, reconciliation (`reconcile`): every provider whose
   * plugin can list what was paid (Stripe with `STRIPE_API_KEY`, Creem with
   * `CREEM_API_KEY`) is read from its cursor, kept in D1; paid orders no webhook
   * brought are stored and sent (Creem's are named to the owner instead, once each),
   * and the owner is alerted once per run. Default on (`{}`); `false` turns it off.
   */
  readonly reconcile?: ReconcileOptions | false
  /** Logs as JSON lines, which Workers Logs index by field (default true). */
  readonly jsonLogs?: boolean
}

/** One reconciliation run of a cron invocation, each provider's counts logged; its failure is logged, never thrown after the sweep. */
const reconcileOnCron = (options: ReconcileOptions) =>
  reconcile(options).pipe(
    Effect.tap((report) =>
      Effect.forEach(report.providers, (p) =>
        Effect.annotateLogs(p.error === null ? Effect.logInfo("reconcile") : Effect.logError("reconcile stopped early"), {
          provider: p.provider,
          seen: p.seen,
          known: p.known,
          new: p.new,
          unpaid: p.unpaid,
          ...(p.error === null ? {} : { reason: p.error.reason, detail: p.error.detail })
        }), { discard: true })
    ),
    Effect.catchAllCause((cause) => Effect.logError("a reconciliation run failed", cause)),
    Effect.asVoid
  )

/** The Worker's `env`, as Workers pass it. */
export type WorkerEnvInput = object

/** The handlers for `export default`. */
export interface HookgateWorker {
  readonly fetch: (request: Request, env: WorkerEnvInput, ctx: WorkerExecutionContext) => Promise<Response>
  readonly scheduled: (controller: WorkerScheduledController, env: WorkerEnvInput, ctx: WorkerExecutionContext) => Promise<void>
  readonly queue: (batch: WorkerMessageBatch, env: WorkerEnvInput, ctx: WorkerExecutionContext) => Promise<void>
}

/**
 * How one runtime serves HTTP. Without a tracer of the layer's own, the
 * `http.server` span of @effect/platform would go nowhere, yet it parses the URL
 * and copies every header into attributes on each request: it is turned off,
 * and `POST /webhooks/:provider` is answered without the router at all
 * (`answerWebhookRequest`: the same answer and log line, without @effect/platform's
 * per-request context copy, scope and response conversion). A layer that sets a
 * tracer (`Layer.setTracer`, OpenTelemetry) keeps the span, and every request
 * goes through the router.
 */
const serving = <R>(runtime: Runtime.Runtime<R>, app: HttpRouter.HttpRouter<unknown, R>) => {
  const tracing = runtimeTracingEnabled(runtime)
  return {
    handler: HttpApp.toWebHandlerRuntime(
      tracing ? runtime : Runtime.setFiberRef(runtime, HttpMiddleware.currentTracerDisabledWhen, constTrue)
    )(app),
    run: tracing ? undefined : Runtime.runPromise(runtime)
  }
}

const WEBHOOK_PATH = /^\/webhooks\/([^/]+)$/

const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/

/**
 * The trace id a request's log lines carry (`traceId`): the caller's, from a W3C `traceparent`
 * header, or a fresh random one, so every line of one invocation can be found together in
 * Workers Logs or wherever a Logpush job or tail Worker forwards them.
 */
export const invocationTraceId = (traceparent?: string | null): string => {
  const given = TRACEPARENT.exec(traceparent ?? "")
  if (given !== null && given[1] !== "00000000000000000000000000000000") return given[1]!
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("")
}

/** The provider of a `POST /webhooks/:provider` request (decoded as the router decodes it), or undefined. */
const webhookProvider = (request: Request): string | undefined => {
  if (request.method !== "POST") return undefined
  const match = WEBHOOK_PATH.exec(new URL(request.url).pathname)
  if (match === null) return undefined
  try {
    return decodeURIComponent(match[1]!)
  } catch {
    return undefined // the router answers it, as before
  }
}

const json = (answer: ContractAnswer) =>
  new Response(JSON.stringify(answer.body), {
    status: answer.httpStatus,
    headers: { "content-type": "application/json" }
  })

/**
 * The webhook and health routes (`/healthz`, and `/readyz`, which reads D1), with `router`'s
 * beside them; a route of `router` that would replace one is refused.
 */
const keptRoutes = <R>(options: { readonly webhooks?: WebhookRoutesOptions; readonly router?: HttpRouter.HttpRouter<unknown, R> }) => {
  const kept = HttpRouter.concat(webhookRoutes(options.webhooks), readinessRoute)
  if (options.router === undefined) return kept
  for (const route of options.router.routes) {
    const clash = Array.from(kept.routes).find((own) => own.path === route.path && (route.method === "*" || own.method === route.method))
    if (clash !== undefined) {
      throw new Error(
        `makeWorker: router declares ${route.method} ${route.path}, which makeWorker always serves; ` +
          "pass only the routes you add (webhookRoutes() is no longer needed in router)"
      )
    }
  }
  return HttpRouter.concat(kept, options.router)
}

/**
 * Every routed request's log lines carry a `traceId` too: the server span's when a tracer
 * makes one (the caller's trace, when it sent `traceparent`), else as on the direct path.
 */
const withTraceId = <E, R>(handler: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    Effect.flatMap(Effect.option(Effect.currentSpan), (span) =>
      Effect.annotateLogs(
        handler,
        "traceId",
        span._tag === "Some" ? span.value.traceId : invocationTraceId(request.headers["traceparent"])
      )))

const unavailable = () =>
  new Response(JSON.stringify({ status: "unavailable" }), {
    status: 503,
    headers: { "content-type": "application/json" }
  })

/**
 * A Worker's handlers for `export default`: `fetch` serves the shared HTTP
 * handler (the webhook routes), `scheduled` runs one retry sweep, and `queue`
 * hands each message of a batch to the consumer of its queue (`queues`),
 * acknowledging it last or retrying it with a delay. The layer is built once per
 * isolate, on the first invocation. The buyer's email is sent before `fetch`
 * answers; owner alerts go out through `ctx.waitUntil` after it. Each isolate has
 * its own `MailerCircuit` (a layer's own, when it provides one).
 */
export const makeWorker = <E, R = never>(options: MakeWorkerOptions<E, R>): HookgateWorker => {
  const jsonLogs = options.jsonLogs !== false
  const runtimes = isolateRuntime(
    (env) => isolateLayer<WorkerServices | R, E>(options.layer, env, jsonLogs),
    jsonLogs ? Logger.replace(Logger.defaultLogger, consoleJsonLogger) : Layer.empty
  )
  const routes = keptRoutes(options)
  // The middleware needs only the request, which the router provides: the routes' own requirements stand.
  const app = HttpRouter.use(routes, withTraceId) as unknown as typeof routes
  const served = new WeakMap<Runtime.Runtime<WorkerServices | R>, ReturnType<typeof serving<WorkerServices | R>>>()
  const servingOf = (runtime: Runtime.Runtime<WorkerServices | R>) => {
    let serves = served.get(runtime)
    if (serves === undefined) {
      serves = serving(runtime, app)
      served.set(runtime, serves)
    }
    return serves
  }
  const asEnv = (env: WorkerEnvInput) => env as Readonly<Record<string, unknown>>

  /**
   * Runs one invocation on its tenant's runtime, held until the invocation and the
   * work it deferred to `ctx.waitUntil` are done (an evicted runtime is disposed only then).
   */
  const invoke = async <A>(
    { release, runtime }: HeldRuntime<WorkerServices | R>,
    ctx: WorkerExecutionContext,
    run: (runtime: Runtime.Runtime<WorkerServices | R>, background: ReturnType<typeof makeBackground>) => Promise<A>
  ): Promise<A> => {
    const background = makeBackground()
    try {
      return await run(runtime, background)
    } finally {
      // Work deferred before a failure still goes out.
      const deferred = background.flush(runtime)
      if (deferred === undefined) release()
      else ctx.waitUntil(deferred.finally(release))
    }
  }

  return {
    fetch: async (request, env, ctx) => {
      // Logged by isolateRuntime; 503 so that the provider retries the webhook.
      const held = await runtimes.acquire(asEnv(env)).catch(() => undefined)
      if (held === undefined) return unavailable()
      const provider = webhookProvider(request)
      // The answer's body is complete when the handler returns (JSON): nothing streams from the runtime after it.
      return invoke(held, ctx, (runtime, background) => {
        const { handler, run } = servingOf(runtime)
        return provider !== undefined && run !== undefined
          ? run(
            answerWebhookRequest(provider, request, options.webhooks).pipe(
              Effect.annotateLogs("traceId", invocationTraceId(request.headers.get("traceparent"))),
              Effect.provideService(Background, background.service)
            )
          ).then(json)
          : handler(request, Context.make(Background, background.service))
      })
    },

    scheduled: async (controller, env, ctx) =>
      invoke(await runtimes.acquire(asEnv(env)), ctx, (runtime, background) =>
        Runtime.runPromise(runtime)(
          sweep({ limit: 50, concurrency: 4, ...options.sweep }).pipe(
            // The report's counts as log fields, which Workers Logs index.
            Effect.tap((report) => Effect.annotateLogs(Effect.logInfo("sweep"), { ...report })),
            Effect.zipRight(options.reconcile === false ? Effect.void : reconcileOnCron(options.reconcile ?? {})),
            Effect.annotateLogs({ cron: controller.cron, scheduledTime: controller.scheduledTime, traceId: invocationTraceId() }),
            Effect.provideService(Background, background.service)
          )
        ).then(() => undefined)),

    queue: async (batch, env, ctx) => {
      const consumer = options.queues?.[batch.queue]
      // Throwing leaves every message unacknowledged: Queues retries them (and, past
      // max_retries, moves them to the dead-letter queue if there is one).
      if (consumer === undefined) throw new QueueNotConfigured({ queue: batch.queue, messages: batch.messages.length })
      return invoke(await runtimes.acquire(asEnv(env)), ctx, (runtime, background) =>
        Runtime.runPromise(runtime)(
          consumeBatch(batch, consumer, options.queueConcurrency === undefined ? {} : { concurrency: options.queueConcurrency }).pipe(
            Effect.annotateLogs("traceId", invocationTraceId()),
            Effect.provideService(Background, background.service)
          )
        ))
    }
  }
}
