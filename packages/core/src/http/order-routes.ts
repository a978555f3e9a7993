import { HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { OrderStatus, OrderStore, sweep } from "@hookgate/core"
import { timingSafeEqual, utf8 } from "@hookgate/core/providers"
import { Clock, Effect, Option, Redacted, Schema } from "effect"

/**
 * `/admin/*`, behind `Authorization: Bearer <HOOKGATE_ADMIN_TOKEN>`. Without a
 * token configured the routes are not mounted at all.
 */

const json = (body: unknown, status = 200) => HttpServerResponse.unsafeJson(body, { status })

/** Wraps a handler: it runs only with `Authorization: Bearer <token>`, else 401. */
export const requireToken = (token: Redacted.Redacted<string>) => {
  const expected = utf8(`Bearer ${Redacted.value(token)}`)
  return <E, R>(handler: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      timingSafeEqual(utf8(request.headers["authorization"] ?? ""), expected)
        ? handler
        : Effect.succeed(json({ status: "unauthorized" }, 401)))
}

const StatusQuery = Schema.Struct({
  status: Schema.optional(OrderStatus),
  limit: Schema.optionalWith(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 1000)), { default: () => 100 })
})
const RetryBody = Schema.Struct({ confirm: Schema.optional(Schema.Boolean) })
const KeyParam = Schema.Struct({ key: Schema.String })

const badRequest = (error: { readonly message: string }) => Effect.succeed(json({ status: "bad_request", detail: error.message }, 400))

export const adminRoutes = (token: Redacted.Redacted<string>) => {
  const guarded = requireToken(token)
  return HttpRouter.empty.pipe(
    HttpRouter.get("/admin/stats", guarded(Effect.flatMap(OrderStore, (store) => store.stats).pipe(Effect.map((s) => json(s))))),
    HttpRouter.get(
      "/admin/orders",
      guarded(
        HttpServerRequest.schemaSearchParams(StatusQuery).pipe(
          Effect.flatMap(({ limit, status }) => Effect.flatMap(OrderStore, (store) => store.list({ limit, status }))),
          Effect.map((orders) => json({ orders })),
          Effect.catchTag("ParseError", badRequest)
        )
      )
    ),
    HttpRouter.get(
      "/admin/orders/:key",
      guarded(Effect.gen(function*() {
        const { key } = yield* HttpRouter.schemaPathParams(KeyParam)
        const store = yield* OrderStore
        const order = yield* store.get(key)
        if (Option.isNone(order)) return json({ status: "not_found", orderId: key }, 404)
        const receipts = yield* store.receipts({ orderKey: key, limit: 100 })
        return json({ order: order.value, receipts })
      }))
    ),
    HttpRouter.post(
      "/admin/orders/:key/retry",
      guarded(Effect.gen(function*() {
        const { key } = yield* HttpRouter.schemaPathParams(KeyParam)
        const body = yield* HttpServerRequest.schemaBodyJson(RetryBody).pipe(Effect.orElseSucceed(() => ({ confirm: false })))
        const store = yield* OrderStore
        const order = yield* store.get(key)
        if (Option.isNone(order)) return json({ status: "not_found", orderId: key }, 404)
        if (body.confirm !== true) {
          // An unmarked order may already have produced an accepted email: show what is known first.
          return json({ status: "confirm_required", orderId: key, order: order.value }, 400)
        }
        const requeued = yield* store.requeue(key, yield* Clock.currentTimeMillis)
        return Option.isSome(requeued)
          ? json({ status: "requeued", orderId: key, order: requeued.value })
          : json({ status: "not_retryable", orderId: key, order: order.value }, 409)
      }))
    ),
    HttpRouter.get(
      "/admin/alerts",
      guarded(Effect.flatMap(OrderStore, (store) => store.alerts({ limit: 100 })).pipe(Effect.map((alerts) => json({ alerts }))))
    ),
    HttpRouter.post("/admin/sweep", guarded(Effect.map(sweep(), (report) => json(report))))
  )
}
