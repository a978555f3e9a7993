// A minimal Effect Worker for the worker suite: the hand-written Worker's work
// (bench/suites/worker/handwritten.ts) written with Effect as an application would
// write it, with no hookgate: Effect.gen, the body decoded by Schema, D1 and the
// binding through Effect.tryPromise, one JSON log line, a runtime built once at
// module scope. Bundled by esbuild as wrangler bundles; what it costs is Effect's
// own floor for start-up and for a webhook.
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Schema from "effect/Schema"
import type { Env } from "./handwritten.js"

const TOLERANCE_SECONDS = 300
const encoder = new TextEncoder()
let hmacKey: Promise<CryptoKey> | undefined

const CheckoutEvent = Schema.parseJson(Schema.Struct({
  type: Schema.String,
  data: Schema.Struct({
    object: Schema.Struct({
      id: Schema.String,
      payment_status: Schema.String,
      customer_details: Schema.Struct({ email: Schema.String })
    })
  })
}))
const decodeEvent = Schema.decodeUnknown(CheckoutEvent)

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } })

const hexToBytes = (hex: string) =>
  /^[0-9a-f]{64}$/.test(hex) ? Uint8Array.from(hex.match(/../g)!, (byte) => parseInt(byte, 16)) : undefined

const verified = (secret: string, header: string | null, body: string) =>
  Effect.promise(async () => {
    const parts = (header ?? "").split(",").map((part) => part.split("=", 2))
    const timestamp = parts.find(([name]) => name === "t")?.[1] ?? ""
    const signatures = parts.flatMap(([name, value]) => {
      const bytes = name === "v1" && value !== undefined ? hexToBytes(value) : undefined
      return bytes === undefined ? [] : [bytes]
    })
    const seconds = Number(timestamp)
    if (!Number.isInteger(seconds) || Math.abs(Date.now() / 1000 - seconds) > TOLERANCE_SECONDS) return false
    hmacKey ??= crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["verify"])
    const key = await hmacKey
    const content = encoder.encode(`${timestamp}.${body}`)
    for (const signature of signatures) {
      if (await crypto.subtle.verify("HMAC", key, signature, content)) return true
    }
    return false
  })

const handle = (request: Request, env: Env) =>
  Effect.gen(function*() {
    const body = yield* Effect.promise(() => request.text())
    if (!(yield* verified(env.STRIPE_WEBHOOK_SECRET, request.headers.get("stripe-signature"), body))) {
      return json(401, { status: "unauthorized" })
    }
    const event = yield* decodeEvent(body)
    const session = event.data.object
    if (event.type !== "checkout.session.completed" || session.payment_status !== "paid") return json(200, { status: "ignored" })
    const orderKey = `stripe:${session.id}`
    const email = session.customer_details.email
    const inserted = yield* Effect.tryPromise(() =>
      env.DB.prepare(
        "INSERT INTO handwritten_orders (order_key, email, status, created_at) VALUES (?, ?, 'sending', ?) ON CONFLICT DO NOTHING"
      ).bind(orderKey, email, Date.now()).run()
    )
    if (inserted.meta.changes === 0) return json(200, { status: "duplicate", orderId: orderKey })
    yield* Effect.tryPromise(() =>
      env.EMAIL.send({
        from: { email: "shop@example.com", name: "Example Shop" },
        to: email,
        subject: "Your order is ready",
        text: `Thank you! Your order ${orderKey} is ready.`,
        headers: { "X-Idempotency-Key": orderKey }
      })
    )
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
