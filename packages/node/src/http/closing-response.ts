import { IncomingMessage, ServerResponse } from "node:http"

/**
 * A `ServerResponse` whose `end(…, callback)` calls back also when the connection closes
 * first, for the server of `hookgate serve` (`createServer({ ServerResponse: … })`).
 *
 * Node calls `end`'s callback on `finish` only. A client that hangs up just before the answer
 * (its FIN read, the socket ended but not yet closed) leaves the answer buffered on a socket
 * that is never written again, and `finish` never comes; the same when the connection closed
 * before `end`. @effect/platform-node (0.108) writes an answer with `end(body, callback)` and
 * waits for the callback uninterruptibly, in the request's fiber: that fiber then never ends,
 * and whatever it holds stays held (the request's memory, and the admission gate's slot,
 * whose middleware wraps the write). Observed under load (autocannon ending its rounds):
 * every webhook got 503 busy once all the slots were held that way.
 */
export class ClosingResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
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
