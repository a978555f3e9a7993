import { HttpClient, HttpClientRequest, HttpMiddleware, HttpRouter, HttpServer, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeHttpClient, NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { constTrue } from "effect/Function"
import { randomUUID } from "node:crypto"
import { createServer } from "node:http"
import { type BaselineServerOptions, type BaselineStore, baselineStore, paidSession, receiptRequest, verifiedStripe } from "./http-baseline-server.js"

/**
 * The HTTP suite's Effect floor: the least a server on `@effect/platform` costs for a
 * webhook's work, so that what hookgate spends above it is hookgate's, and what it
 * spends below the node:http baseline's cost but above this one is Effect's own.
 * The baseline's work, step for step (http-baseline-server.ts: the same Stripe HMAC
 * with node:crypto, the same two statements through better-sqlite3, the same receipt),
 * served by `NodeHttpServer` and an `HttpRouter` route, the body read by the platform,
 * the receipt sent through `HttpClient` on undici as the gateway sends it. Set up as
 * hookgate serves without a trace exporter: @effect/platform's server and client spans
 * are off. No log line (the baseline has none either).
 */

const json = (status: number, body: unknown) => HttpServerResponse.unsafeJson(body, { status })

const webhook = (options: BaselineServerOptions, store: BaselineStore) =>
  Effect.gen(function*() {
    const client = HttpClient.withTracerDisabledWhen(yield* HttpClient.HttpClient, constTrue)
    return Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const body = Buffer.from(yield* request.arrayBuffer)
      if (!verifiedStripe(request.headers["stripe-signature"], body, options.stripeSecret)) {
        return json(400, { status: "invalid_signature" })
      }
      const event = JSON.parse(body.toString("utf8"))
      const order = paidSession(event)
      if (order === undefined) return json(200, { status: "ignored", eventType: event.type })
      const token = randomUUID()
      if (!store.claim(event.id, event.type, order, token, Date.now())) return json(200, { status: "duplicate", orderId: order.key })
      const receipt = receiptRequest(options, order)
      const sent = yield* client.execute(
        HttpClientRequest.post(receipt.url).pipe(
          HttpClientRequest.setHeaders(receipt.headers),
          HttpClientRequest.bodyText(receipt.body, "application/json")
        )
      )
      if (sent.status < 200 || sent.status >= 300) return json(500, { status: "retry", orderId: order.key, detail: yield* sent.text })
      const { id } = (yield* sent.json) as { id: string }
      store.complete(order.key, token, id, Date.now())
      return json(200, { status: "sent", orderId: order.key })
    }).pipe(Effect.catchAll((error) => Effect.succeed(json(500, { status: "error", detail: String(error) }))))
  })

/**
 * The floor server on a free port of 127.0.0.1, as a layer: `onListening` gets its
 * URL; closing the layer's scope closes the server, then the database.
 */
export const effectFloorServer = (options: BaselineServerOptions, onListening: (url: string) => void) =>
  Layer.unwrapScoped(
    Effect.gen(function*() {
      const store = yield* Effect.acquireRelease(Effect.sync(() => baselineStore(options.filename)), (s) => Effect.sync(() => s.db.close()))
      const route = yield* webhook(options, store)
      return HttpServer.serve(HttpRouter.empty.pipe(HttpRouter.post("/webhooks/stripe", route))).pipe(
        HttpMiddleware.withTracerDisabledWhen(constTrue),
        Layer.provideMerge(Layer.effectDiscard(HttpServer.addressFormattedWith((url) => Effect.sync(() => onListening(url))))),
        Layer.provide(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
      )
    })
  ).pipe(Layer.provide(NodeHttpClient.layerUndici))
