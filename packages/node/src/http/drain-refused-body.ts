import { HttpMiddleware, HttpServerRequest } from "@effect/platform"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Effect } from "effect"

/** A refused body is read and discarded up to this much more; past it the connection is cut after all. */
const DRAIN_AT_MOST = 16 * 1024 * 1024

/**
 * A 413 for a chunked body (no Content-Length to refuse it by) is decided
 * while the client is still sending. The body reader then stops, and
 * platform-node's stream destroys the request, which resets the connection:
 * the client sees "connection reset", not the 413. So for this request a
 * destroy becomes "read on and discard" (bounded), and Node's server drains
 * the rest after the answer, which the client then reads.
 */
export const drainRefusedBody = HttpMiddleware.make((app) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    Effect.suspend(() => {
      const incoming = NodeHttpServerRequest.toIncomingMessage(request)
      if (request.method !== "POST" || incoming.headers["content-length"] !== undefined) return app
      const destroy = incoming.destroy.bind(incoming)
      incoming.destroy = (error?: Error) => {
        if (incoming.complete) return destroy(error)
        let drained = 0
        incoming.on("data", (chunk: Buffer) => {
          drained += chunk.length
          if (drained > DRAIN_AT_MOST) destroy(error)
        })
        incoming.resume()
        return incoming
      }
      return app
    }))
)
