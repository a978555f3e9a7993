import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import { OrderStore } from "../orders/order-store.js"

/** A key no order has (order keys are `provider:id`): reading it is one indexed lookup. */
const PROBE_KEY = "readyz:probe"

/**
 * `GET /readyz`: 200 `{ "status": "ready" }` when the store answers a read, else 503
 * `{ "status": "unavailable" }`, the answer every webhook gets meanwhile. A load balancer
 * (or an uptime check) routes on this one; `/healthz` stays the liveness check (the
 * process or isolate is up), so a database outage takes the gateway out of rotation
 * without getting it restarted. The Node server and `makeWorker` both serve it.
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
