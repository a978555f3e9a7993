import { type HttpApp, HttpMiddleware, HttpServerRequest, type HttpServerResponse } from "@effect/platform"
import { Clock, Effect } from "effect"

/** The request's line: method, path (no query), status, duration. */
const logged = <E, R>(request: HttpServerRequest.HttpServerRequest, app: HttpApp.Default<E, R>) =>
  Effect.gen(function*() {
    const startedAt = yield* Clock.currentTimeMillis
    const response: HttpServerResponse.HttpServerResponse = yield* app
    const path = request.url.split("?")[0]
    yield* Effect.logInfo("request").pipe(
      Effect.annotateLogs({
        method: request.method,
        path,
        httpStatus: response.status,
        durationMs: (yield* Clock.currentTimeMillis) - startedAt
      })
    )
    return response
  })

/**
 * One structured line per request that is not a webhook (webhooks log their own
 * line from the core handler, with provider, outcome and order key): a webhook
 * goes straight to the app, with no clock read or step of its own.
 */
export const requestLog = HttpMiddleware.make((app) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    request.url.startsWith("/webhooks/") ? app : logged(request, app))
)
