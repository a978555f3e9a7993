import { IncomingMessage, ServerResponse } from "node:http"
import type { Socket } from "node:net"

/** Per connection, its responses without a socket yet: one `close` listener per connection, however many are queued. */
const unassigned = new WeakMap<Socket, Set<ServerResponse>>()

const unassignedOn = (socket: Socket) => {
  let responses = unassigned.get(socket)
  if (responses === undefined) {
    const queued = new Set<ServerResponse>()
    unassigned.set(socket, queued)
    socket.once("close", () => {
      // As Node does for the response that has the socket (`emitCloseNT` in _http_server).
      for (const response of queued) {
        response.destroy()
        response.emit("close")
      }
      queued.clear()
    })
    responses = queued
  }
  return responses
}

/**
 * A `ServerResponse` that ends with its connection, for the server of `hookgate serve`
 * (`createServer({ ServerResponse: … })`): its `end(…, callback)` calls back also when the
 * connection closes first, and it emits `close` when its connection closes also while it
 * waits its turn behind an earlier answer on that connection.
 *
 * @effect/platform-node (0.108) runs each request in a fiber that ends only when Node says the
 * answer is written or the connection is gone; whatever the fiber holds stays held until then
 * (the request's memory, and the admission gate's slot, whose middleware wraps the handler).
 * Two of Node's events it relies on do not always come:
 *
 * - It writes an answer with `end(body, callback)` and waits for the callback uninterruptibly.
 *   Node calls it on `finish` only. A client that hangs up just before the answer (its FIN
 *   read, the socket ended but not yet closed) leaves the answer buffered on a socket that is
 *   never written again, and `finish` never comes; the same when the connection closed before
 *   `end`. Observed under load (autocannon ending its rounds): every webhook got 503 busy once
 *   all the slots were held that way.
 * - It interrupts the fiber on the response's `close`. Node emits it when the socket the
 *   response was given closes; a response queued behind another on a keep-alive connection
 *   (the client sent its requests pipelined) has no socket yet, and when the connection is cut
 *   Node destroys its request (no `error` event without a listener) and forgets the response:
 *   no `close`, no `finish`. Its fiber waited forever, in the admission queue and then reading
 *   a body that never ends, or for `end`'s callback.
 */
export class ClosingResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  /** The responses of this one's connection that have no socket yet (this one, until Node gives it the socket). */
  private unassigned: Set<ServerResponse> | undefined

  // Node passes options after the request (highWaterMark, …) that @types/node does not declare.
  constructor(request: Request, ...options: Array<unknown>) {
    super(request, ...(options as []))
    // Node gives the socket right after constructing, unless an earlier answer still has it.
    this.unassigned = unassignedOn(request.socket)
    this.unassigned.add(this)
  }

  override assignSocket(socket: Socket): void {
    this.unassigned?.delete(this)
    this.unassigned = undefined
    super.assignSocket(socket)
  }

  override end(...args: Array<unknown>): this {
    const last = args.at(-1)
    if (typeof last !== "function") return super.end(...(args as [])) as this
    let pending = true
    const done = (...result: Array<unknown>) => {
      if (!pending) return
      pending = false
      this.off("close", onClose)
      ;(last as (...result: Array<unknown>) => void)(...result)
    }
    const onClose = () => done()
    this.once("close", onClose)
    super.end(...(args.slice(0, -1) as []), done)
    // Closed already: its `close` has been emitted, and `finish` will not come.
    if (this.destroyed) process.nextTick(onClose)
    return this
  }
}
