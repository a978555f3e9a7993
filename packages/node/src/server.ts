import { HttpRouter, HttpServer } from "@effect/platform"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { runSweeper } from "@hookgate/core"
import { consoleRoutes } from "@hookgate/core/console"
import { adminRoutes, readinessRoute, webhookRoutes } from "@hookgate/core/http"
import { Duration, Effect, Layer, Option } from "effect"
import { createServer } from "node:http"
import type { GatewayConfig } from "./config/gateway-config.js"
import type { GatewayOverrides } from "./gateway-layer.js"
import * as Gateway from "./Gateway.js"
import { metricsRoute, PrometheusReader } from "./http/metrics.js"
import { ClosingResponse } from "./http/closing-response.js"
import { drainRefusedBody } from "./http/drain-refused-body.js"
import type { OptionalPackagesMissing } from "./optional-packages.js"
import { reconcilerLayer } from "./reconcile.js"
import { requestLog } from "./http/request-log.js"
import { webhookAdmission } from "./http/webhook-admission.js"
import { tracingLayer } from "./tracing.js"
import { layerTimeSlicedScheduler } from "./http/time-sliced-scheduler.js"

/**
 * Every route of the gateway: webhooks, liveness (`/healthz`) and readiness (`/readyz`), admin and
 * campaigns (with a token), the console at `/console` (with a token; 404 without), metrics (with
 * HOOKGATE_METRICS=prometheus).
 */
export const gatewayRouter = (config: GatewayConfig) =>
  Option.match(config.adminToken, {
    onNone: () => webhookRoutes({ maxBodyBytes: config.maxBodyBytes }),
    onSome: (token) =>
      HttpRouter.concatAll(
        webhookRoutes({ maxBodyBytes: config.maxBodyBytes }),
        adminRoutes({ token, campaigns: {} }),
        consoleRoutes({ token })
      )
  }).pipe(
    HttpRouter.concat(readinessRoute),
    HttpRouter.concat(config.metrics === "prometheus" ? metricsRoute(config.metricsToken) : HttpRouter.empty)
  )

/**
 * Connections the kernel may hold for the server before it accepts them (the kernel caps it at
 * net.core.somaxconn). Node's default, 511, is less than a burst of connections opened at once
 * (a thousand webhooks from a replay): past it the kernel drops their SYNs, and the clients
 * wait 1, 3, 7 s to send them again, or see their connection reset.
 */
const LISTEN_BACKLOG = 4096

/**
 * The HTTP server on `config.host`:`config.port` (0 picks a free port), closing a connection
 * whose headers take longer than `headersTimeout` or whose whole request (a stalled body)
 * takes longer than `requestTimeout` with 408, with the sweep running
 * on its Schedule in the same process. Closing the layer's scope shuts down
 * gracefully: no new connections, in-flight requests get `shutdownGrace` to
 * finish, then connections are cut, the sweeper stops and the database closes.
 */
export const gatewayServer = (config: GatewayConfig, overrides: GatewayOverrides = {}) => {
  const headersTimeout = Duration.toMillis(config.headersTimeout)
  const requestTimeout = Duration.toMillis(config.requestTimeout)
  // Node checks the deadlines every `connectionsCheckingInterval` (30 s by default): check
  // often enough that a stalled connection is closed close to its deadline.
  // ClosingResponse: a request whose client hung up as it was answered still ends (closing-response.ts).
  const server = createServer({
    ServerResponse: ClosingResponse,
    headersTimeout,
    requestTimeout,
    connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(headersTimeout / 4)))
  })
  const graceful = Layer.scopedDiscard(
    // Added after the server's own finalizer, so it runs first: it arms the deadline
    // while `server.close()` waits for in-flight requests.
    Effect.addFinalizer(() =>
      Effect.sync(() => {
        setTimeout(() => server.closeAllConnections(), Duration.toMillis(config.shutdownGrace)).unref()
      })
    )
  )
  const sweeper = Layer.scopedDiscard(Effect.forkScoped(runSweeper()))
  // With a provider's API key: reconcile at start, then every HOOKGATE_RECONCILE_EVERY (default 1 hour).
  const reconciler = reconcilerLayer(config)
  // Campaign batches go through the in-process queue; the watcher sends open batches when it is idle.
  const campaigns = Gateway.layerCampaignWatcher(config.campaignPoll).pipe(Layer.provideMerge(Gateway.layerCampaigns))
  // Webhooks beyond HOOKGATE_WEBHOOK_CONCURRENCY (default 32; `off`: no gate) wait for a slot, at most HOOKGATE_WEBHOOK_QUEUE_TIMEOUT (then 503 busy).
  const admission = Option.match(config.webhookConcurrency, {
    onNone: () => Effect.succeed(<A>(app: A) => app),
    onSome: (concurrency) => webhookAdmission({ concurrency, queueTimeout: config.webhookQueueTimeout })
  })
  const serve = Layer.unwrapEffect(Effect.map(admission, (admitted) =>
    HttpServer.serve(gatewayRouter(config), (app) => requestLog(admitted(drainRefusedBody(app))))))
  return serve.pipe(
    Layer.provideMerge(graceful),
    Layer.provideMerge(NodeHttpServer.layer(() => server, { port: config.port, backlog: LISTEN_BACKLOG, ...Option.match(config.host, { onNone: () => ({}), onSome: (host) => ({ host }) }) })),
    Layer.provideMerge(sweeper),
    Layer.provideMerge(reconciler),
    Layer.provideMerge(campaigns),
    Layer.provideMerge(Gateway.layer(config, overrides)),
    // Before the store opens: a missing optional package refuses the start first.
    Layer.provideMerge(prometheus(config)),
    // Built first, so the server, the sweeper and the campaign watcher all run under its tracer.
    Layer.provide(tracingLayer),
    // Every fiber of the layer (requests, sweeps, campaigns) hands the event loop back every
    // 5 ms of work, so that Node accepts new connections under load (time-sliced-scheduler.ts).
    Layer.provide(layerTimeSlicedScheduler)
  )
}

/**
 * The reader `/metrics` serves: the optional OpenTelemetry packages are imported only when
 * metrics are on. Off, there is no `/metrics` route, so nothing reads the stand-in.
 */
const prometheus = (config: GatewayConfig): Layer.Layer<PrometheusReader, OptionalPackagesMissing> =>
  config.metrics === "prometheus"
    ? PrometheusReader.layer()
    : Layer.succeed(PrometheusReader, { text: Effect.dieMessage("HOOKGATE_METRICS is off: no /metrics route reads this") })

/** The base URL of a running server: `localhost` when it listens on every interface, else its address. */
export const serverUrl = Effect.map(HttpServer.HttpServer, (server) => {
  if (server.address._tag !== "TcpAddress") return "unix socket"
  const { hostname, port } = server.address
  const any = hostname === "::" || hostname === "0.0.0.0"
  return `http://${any ? "localhost" : hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`
})
