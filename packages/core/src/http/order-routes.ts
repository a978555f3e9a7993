import * as EpochMillis from "../kernel/EpochMillis.js"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { OrderStatus } from "../orders/order.js"
import { MailerCircuit } from "../mail/circuit.js"
import { OrderStore } from "../orders/order-store.js"
import { AlertStore } from "../alerts/alert-store.js"
import { lastRuns } from "../orders/last-runs.js"
import { sweep } from "../orders/sweep.js"

/**
 * The order admin routes, runtime-neutral and unguarded: `adminRoutes` mounts
 * them behind the admin token.
 *
 * - `GET /admin/stats`: order counts.
 * - `GET /admin/orders?status=&limit=`: the newest orders (at most 1000).
 * - `GET /admin/orders/:key`: one order, its receipts and its attempts (newest first).
 * - `POST /admin/orders/:key/retry` with `{ "confirm": true }`: requeue a failed
 *   or capped order.
 * - `GET /admin/alerts`: the newest stored alerts.
 * - `POST /admin/sweep`: one sweep now.
 * - `GET /admin/runs`: the last sweep and the last reconciliation run (`{ sweep, reconcile }`,
 *   each null until one ran: `startedAt`, `finishedAt`, `report`).
 */

const json = (body: unknown, status = 200) => HttpServerResponse.unsafeJson(body, { status })

const StatusQuery = Schema.Struct({
  status: Schema.optional(OrderStatus),
  limit: Schema.optionalWith(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 1000)), { default: () => 100 })
})
const RetryBody = Schema.Struct({ confirm: Schema.optional(Schema.Boolean) })
const KeyParam = Schema.Struct({ key: Schema.String })

const badRequest = (error: { readonly message: string }) => Effect.succeed(json({ status: "bad_request", detail: error.message }, 400))

/** The order admin routes, unguarded (not exported from the entry point). */
export const orderRoutes = HttpRouter.empty.pipe(
  HttpRouter.get(
    "/admin/stats",
    Effect.zipWith(
      Effect.flatMap(OrderStore, (store) => store.stats),
      Effect.flatMap(MailerCircuit, (circuit) => circuit.status),
      (stats, circuit) => json({ ...stats, ...circuit })
    )
  ),
  HttpRouter.get(
    "/admin/orders",
    HttpServerRequest.schemaSearchParams(StatusQuery).pipe(
      Effect.flatMap(({ limit, status }) => Effect.flatMap(OrderStore, (store) => store.list({ limit, status }))),
      Effect.map((orders) => json({ orders })),
      Effect.catchTag("ParseError", badRequest)
    )
  ),
  HttpRouter.get(
    "/admin/orders/:key",
    Effect.gen(function*() {
      const { key } = yield* HttpRouter.schemaPathParams(KeyParam)
      const store = yield* OrderStore
      const order = yield* store.get(key)
      if (Option.isNone(order)) return json({ status: "not_found", orderId: key }, 404)
      const receipts = yield* store.receipts({ orderKey: key, limit: 100 })
      const attempts = yield* store.attempts(key, { limit: 100 })
      return json({ order: order.value, receipts, attempts })
    })
  ),
  HttpRouter.post(
    "/admin/orders/:key/retry",
    Effect.gen(function*() {
      const { key } = yield* HttpRouter.schemaPathParams(KeyParam)
      const body = yield* HttpServerRequest.schemaBodyJson(RetryBody).pipe(Effect.orElseSucceed(() => ({ confirm: false })))
      const store = yield* OrderStore
      const order = yield* store.get(key)
      if (Option.isNone(order)) return json({ status: "not_found", orderId: key }, 404)
      if (body.confirm !== true) {
        // An unmarked order may already have produced an accepted email: show what is known first.
        return json({ status: "confirm_required", orderId: key, order: order.value }, 400)
      }
      const requeued = yield* store.requeue(key, yield* EpochMillis.now)
      return Option.isSome(requeued)
        ? json({ status: "requeued", orderId: key, order: requeued.value })
        : json({ status: "not_retryable", orderId: key, order: order.value }, 409)
    })
  ),
  HttpRouter.get(
    "/admin/alerts",
    Effect.flatMap(AlertStore, (store) => store.list({ limit: 100 })).pipe(Effect.map((alerts) => json({ alerts })))
  ),
  HttpRouter.post("/admin/sweep", Effect.map(sweep(), (report) => json(report))),
  HttpRouter.get("/admin/runs", Effect.map(lastRuns, (runs) => json(runs)))
)
