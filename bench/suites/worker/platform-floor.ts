// The platform floor of the worker suite: the minimal Effect Worker's work
// (minimal-effect.ts) written the way hookgate's libraries do it, with no hookgate:
// the request routed by @effect/platform's HttpRouter (POST /webhooks/stripe) and
// served by HttpApp.toWebHandlerRuntime, the two D1 statements through
// @effect/sql-d1's D1Client (SqlClient's tagged template), its layer built once per
// isolate from the first request's `env` (Workers hand `env` only to the handlers),
// as @hookgate/cloudflare builds its runtime. Bundled as the minimal one is; what it
// costs over the minimal Worker is the libraries' own, not hookgate's.
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as SqlClient from "@effect/sql/SqlClient"
import * as D1Client from "@effect/sql-d1/D1Client"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { constTrue } from "effect/Function"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Runtime from "effect/Runtime"
import { orderEmail, paidOrder } from "./effect-webhook.js"
import type { Env } from "./handwritten.js"

class WorkerEnv extends Context.Tag("bench/WorkerEnv")<WorkerEnv, Env>() {}

const json = (status: number, body: unknown) => HttpServerResponse.unsafeJson(body, { status })

const webhook = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const env = yield* WorkerEnv
  const body = yield* request.text
  const order = yield* paidOrder(env.STRIPE_WEBHOOK_SECRET, request.headers["stripe-signature"], body)
  if (order === "unauthorized") return json(401, { status: "unauthorized" })
  if (order === "ignored") return json(200, { status: "ignored" })
  const { email, orderKey } = order
  const sql = yield* SqlClient.SqlClient
  // The client answers rows, not D1's `meta.changes`: RETURNING names the row inserted, if any.
  const inserted = yield* sql`INSERT INTO handwritten_orders (order_key, email, status, created_at) VALUES (${orderKey}, ${email}, 'sending', ${Date.now()}) ON CONFLICT DO NOTHING RETURNING order_key`
  if (inserted.length === 0) return json(200, { status: "duplicate", orderId: orderKey })
  yield* Effect.tryPromise(() => env.EMAIL.send(orderEmail(orderKey, email)))
  yield* sql`UPDATE handwritten_orders SET status = 'sent', sent_at = ${Date.now()} WHERE order_key = ${orderKey}`
  yield* Effect.annotateLogs(Effect.logInfo("webhook"), { orderKey, outcome: "sent" })
  return json(200, { status: "sent", orderId: orderKey })
}).pipe(Effect.catchAll(() => Effect.succeed(json(500, { status: "error" }))))

const router = HttpRouter.empty.pipe(HttpRouter.post("/webhooks/stripe", webhook))

/**
 * The isolate's handler, from its first `env`: D1Client on the `DB` binding, the `env`
 * itself, JSON logs. Without a tracer the `http.server` span goes nowhere, so it is
 * turned off, as `makeWorker` turns it off.
 */
const serve = (env: Env) =>
  ManagedRuntime.make(Layer.mergeAll(
    // The suite's `Env` names only what the hand-written Worker calls of the D1 binding.
    D1Client.layer({ db: env.DB as unknown as D1Client.D1ClientConfig["db"] }),
    Layer.succeed(WorkerEnv, env),
    Logger.json
  )).runtime().then((runtime) =>
    HttpApp.toWebHandlerRuntime(Runtime.setFiberRef(runtime, HttpMiddleware.currentTracerDisabledWhen, constTrue))(router)
  )

let handler: ReturnType<typeof serve> | undefined

export default {
  fetch: (request: Request, env: Env): Promise<Response> => (handler ??= serve(env)).then((handle) => handle(request))
}
