// A minimal Effect Worker for the worker suite: the hand-written Worker's work
// (bench/suites/worker/handwritten.ts) written with Effect as an application would
// write it, with no hookgate: Effect.gen, the body decoded by Schema, D1 and the
// binding through Effect.tryPromise, one JSON log line, a runtime built once at
// module scope (the signature check, the schema and the email are effect-webhook.ts's,
// shared with platform-floor.ts). Bundled by esbuild as wrangler bundles; what it
// costs is Effect's own floor for start-up and for a webhook.
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { orderEmail, paidOrder } from "./effect-webhook.js"
import type { Env } from "./handwritten.js"

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } })

const handle = (request: Request, env: Env) =>
  Effect.gen(function*() {
    const body = yield* Effect.promise(() => request.text())
    const order = yield* paidOrder(env.STRIPE_WEBHOOK_SECRET, request.headers.get("stripe-signature"), body)
    if (order === "unauthorized") return json(401, { status: "unauthorized" })
    if (order === "ignored") return json(200, { status: "ignored" })
    const { email, orderKey } = order
    const inserted = yield* Effect.tryPromise(() =>
      env.DB.prepare(
        "INSERT INTO handwritten_orders (order_key, email, status, created_at) VALUES (?, ?, 'sending', ?) ON CONFLICT DO NOTHING"
      ).bind(orderKey, email, Date.now()).run()
    )
    if (inserted.meta.changes === 0) return json(200, { status: "duplicate", orderId: orderKey })
    yield* Effect.tryPromise(() => env.EMAIL.send(orderEmail(orderKey, email)))
    yield* Effect.tryPromise(() =>
      env.DB.prepare("UPDATE handwritten_orders SET status = 'sent', sent_at = ? WHERE order_key = ?").bind(Date.now(), orderKey).run()
    )
    yield* Effect.annotateLogs(Effect.logInfo("webhook"), { orderKey, outcome: "sent" })
    return json(200, { status: "sent", orderId: orderKey })
  }).pipe(Effect.catchAll(() => Effect.succeed(json(500, { status: "error" }))))

const runtime = ManagedRuntime.make(Logger.json)

export default {
  fetch: (request: Request, env: Env): Promise<Response> => runtime.runPromise(handle(request, env))
}
