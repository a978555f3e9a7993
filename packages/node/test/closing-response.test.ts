import { HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Schedule } from "effect"
import { createServer } from "node:http"
import { connect, type Socket } from "node:net"
import { ClosingResponse } from "../src/http/closing-response.js"
import { makeAdmissionGate } from "../src/http/admission.js"
import { admissionMiddleware } from "../src/http/webhook-admission.js"

/**
 * A client that hangs up as its webhook is answered: the request still ends on the server,
 * and gives back its admission slot. Node calls `end`'s callback only on `finish`, which
 * never comes once the client's FIN was read (the answer stays buffered on the ended
 * socket) or the connection closed; @effect/platform-node waits for that callback, in the
 * request's fiber, uninterruptibly. With Node's own `ServerResponse` (as before
 * `ClosingResponse`) the first webhook below holds its slot forever and the second is
 * answered 503 busy.
 */

type HangUp = "end" | "close"

/** `hookgate serve`'s server (closing-response.ts), one admission slot, and a webhook route that answers only once its client has hung up. */
const serverWithOneSlot = Effect.gen(function*() {
  const bodyRead = yield* Deferred.make<void>()
  let hangUp: HangUp = "end"
  const route = Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const socket = NodeHttpServerRequest.toIncomingMessage(request).socket
    yield* request.arrayBuffer
    yield* Deferred.succeed(bodyRead, undefined)
    // Like `receive` (uninterruptible once the body is read), it answers when its client has hung
    // up: the FIN read (Node has ended the socket, not closed it yet), or the socket closed.
    yield* Effect.uninterruptible(Effect.async<void>((resume) => {
      const done = () => resume(Effect.void)
      if (hangUp === "end" ? socket.readableEnded : socket.destroyed) done()
      else socket.once(hangUp, done)
    }))
    return HttpServerResponse.unsafeJson({ status: "sent" })
  })
  const router = HttpRouter.empty.pipe(
    HttpRouter.post("/webhooks/held", route),
    HttpRouter.post("/webhooks/quick", HttpServerResponse.json({ status: "sent" })),
    HttpRouter.post("/webhooks/read", Effect.zipRight(Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => request.arrayBuffer), HttpServerResponse.json({ status: "sent" })))
  )
  const server = createServer({ ServerResponse: ClosingResponse })
  const http = yield* NodeHttpServer.make(() => server, { port: 0, host: "127.0.0.1" })
  const options = { concurrency: 1, queueTimeout: "2 seconds" } as const
  const gate = yield* makeAdmissionGate(options)
  yield* http.serve(router, admissionMiddleware(gate, options))
  const address = http.address
  if (address._tag !== "TcpAddress") throw new Error("expected a TCP address")
  return {
    url: `http://127.0.0.1:${address.port}`,
    port: address.port,
    bodyRead: Deferred.await(bodyRead),
    /** Waits until `waiting` webhooks wait for the slot. */
    waitingFor: (waiting: number) => Effect.repeat(gate.load, { until: (load) => load.waiting === waiting, schedule: Schedule.spaced("10 millis") }),
    hangUpBy: (how: HangUp) => void (hangUp = how)
  }
})

const webhookRequest = (path: string) => `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`

/** A raw connection that sends webhooks (pipelined: the next ones without waiting for an answer) and hangs up when told: FIN (`end`) or at once (`destroy`). */
const rawWebhook = (port: number, ...paths: Array<string>) =>
  Effect.sync(() => {
    const socket: Socket = connect(port, "127.0.0.1")
    socket.on("error", () => undefined)
    socket.write(paths.map(webhookRequest).join(""))
    return socket
  })

describe("a client that hangs up as it is answered", () => {
  for (const hangUp of ["end", "close"] as const) {
    it.live(`still ends its request and gives back its admission slot (hung up: socket ${hangUp === "end" ? "ended by the client's FIN" : "closed"})`, () =>
      Effect.gen(function*() {
        const server = yield* serverWithOneSlot
        server.hangUpBy(hangUp)
        const socket = yield* rawWebhook(server.port, "/webhooks/held")
        yield* server.bodyRead
        if (hangUp === "end") socket.end()
        else socket.destroy()
        // The slot is free again: the next webhook is admitted, not refused after the 2 s wait.
        const next = yield* Effect.promise(() => fetch(`${server.url}/webhooks/quick`, { method: "POST", body: "{}" }))
        expect(next.status).toBe(200)
        expect(yield* Effect.promise(() => next.json())).toEqual({ status: "sent" })
      }).pipe(Effect.scoped))
  }
})

/**
 * A webhook pipelined behind another on a keep-alive connection (sent before the first is
 * answered): its answer waits for the first's, without the socket. When the connection is cut,
 * Node destroys its request (with no `error` event for a body read that starts later) and
 * emits nothing on its response, so @effect/platform-node neither interrupts it nor sees its
 * answer written. With Node's own `ServerResponse` the pipelined webhook below takes the slot
 * once the first gives it back, then waits forever, for its body (`read`) or for `end`'s
 * callback (`quick`), and the next webhook is answered 503 busy.
 */
describe("a webhook pipelined behind another on a connection that is cut", () => {
  for (const path of ["/webhooks/quick", "/webhooks/read"]) {
    it.live(`ends while it waits for a slot, and the slot stays free (${path})`, () =>
      Effect.gen(function*() {
        const server = yield* serverWithOneSlot
        server.hangUpBy("close")
        const socket = yield* rawWebhook(server.port, "/webhooks/held", path)
        yield* server.bodyRead
        yield* server.waitingFor(1)
        socket.destroy()
        const next = yield* Effect.promise(() => fetch(`${server.url}/webhooks/quick`, { method: "POST", body: "{}" }))
        // The slot is free: admitted, not refused after the 2 s wait.
        expect(next.status).toBe(200)
      }).pipe(Effect.scoped))
  }
})
