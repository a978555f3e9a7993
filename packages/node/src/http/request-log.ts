import { HttpMiddleware, HttpServerRequest } from "@effect/platform"
import { Clock, Effect } from "effect"

/**
 * One structured line per request that is not a webhook (webhooks log their own
 * line from the core handler, with provider, outcome and order key).
 */
export const requestLog = HttpMiddleware.make((app) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const startedAt = yield* Clock.currentTimeMillis
    const response = yield* app
    if (!request.url.startsWith("/webhooks/")) {
      const path = request.url.split("?")[0]
      yield* Effect.logInfo("request").pipe(
        Effect.annotateLogs({
          method: request.method,
          path,
          httpStatus: response.status,
          durationMs: (yield* Clock.currentTimeMillis) - startedAt
        })
      )
    }
    return response
  })
)
