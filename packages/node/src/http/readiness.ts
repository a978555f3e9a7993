import { HttpRouter, HttpServerResponse } from "@effect/platform"
import { OrderStore } from "@hookgate/core"
import { Effect } from "effect"

/** A key no order has (order keys are `provider:id`): reading it is one indexed lookup. */
const PROBE_KEY = "readyz:probe"

/**
 * `GET /readyz`: 200 `{ "status": "ready" }` when the store answers a read, else 503
 * `{ "status": "unavailable" }`, the answer every webhook gets meanwhile. A load balancer
 * routes on this one; `/healthz` stays the liveness check (the process is up), so a
 * database outage takes the gateway out of rotation without getting it restarted.
 */
export const readinessRoute = HttpRouter.empty.pipe(
  HttpRouter.get(
    "/readyz",
    Effect.flatMap(OrderStore, (store) => store.get(PROBE_KEY)).pipe(
      Effect.as(HttpServerResponse.unsafeJson({ status: "ready" })),
      Effect.catchAll(() => Effect.succeed(HttpServerResponse.unsafeJson({ status: "unavailable" }, { status: 503 })))
    )
  )
)
