import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { bearerTokenOf, tokenMatches } from "@hookgate/core"
import { Effect, type Redacted } from "effect"

/** Wraps a handler: it runs only with `Authorization: Bearer <token>`, else 401 `unauthorized`. */
export const bearerGuard = (token: Redacted.Redacted<string>) =>
<E, R>(handler: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    Effect.flatMap(tokenMatches(bearerTokenOf(request.headers["authorization"]), token), (matches) =>
      matches ? handler : Effect.succeed(HttpServerResponse.unsafeJson({ status: "unauthorized" }, { status: 401 }))))
