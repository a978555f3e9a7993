import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import type { PostmarkOptions } from "../options.js"
import { type IncomingRequest, PostmarkSimulator } from "./simulator.js"
import type { AcceptedEmail, PostmarkErrorReply, PostmarkTestServerOptions, RecordedRequest } from "./types.js"

export interface PostmarkTestServerShape {
  /** The base URL, e.g. `http://127.0.0.1:43117`. */
  readonly url: string
  /** `127.0.0.1:43117`: the official client's `requestHost` (with `useHttps: false`). */
  readonly requestHost: string
  readonly serverToken: string
  /** `{ serverToken, baseUrl }` for the mailer. */
  readonly mailerOptions: PostmarkOptions
  /** The emails accepted so far, in order. */
  readonly emails: ReadonlyArray<AcceptedEmail>
  /** Every request so far, in order, with how it was answered. */
  readonly requests: ReadonlyArray<RecordedRequest>
  /** The next `count` requests fail with this error. */
  readonly failNext: (count: number, error: PostmarkErrorReply) => void
  /** The next `count` requests are accepted, then the connection is closed without an answer. */
  readonly acceptThenDrop: (count?: number) => void
  /** The next `count` requests are dropped without being accepted. */
  readonly dropNext: (count?: number) => void
  /** The next `count` requests wait `millis` before being handled. */
  readonly delayNext: (count: number, millis: number) => void
  /** Forgets emails, requests and faults. */
  readonly reset: () => void
  readonly close: () => Promise<void>
}

const readBody = (request: http.IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    request.on("error", reject)
  })

const lowerCasedHeaders = (request: http.IncomingMessage): Record<string, string | undefined> =>
  Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(", ") : value]))

/** Starts a Postmark stand-in on a local port (Node only). Close it when done. */
export const startPostmarkTestServer = async (options: PostmarkTestServerOptions = {}): Promise<PostmarkTestServerShape> => {
  const simulator = new PostmarkSimulator(options)
  const server = http.createServer((req, res) => {
    void (async () => {
      const incoming: IncomingRequest = {
        method: req.method ?? "GET",
        path: new URL(req.url ?? "/", "http://localhost").pathname,
        headers: lowerCasedHeaders(req),
        body: await readBody(req)
      }
      const reply = await simulator.handle(incoming)
      if (reply._tag === "Drop") {
        req.socket.destroy()
        return
      }
      res.writeHead(reply.status, { "content-type": "application/json; charset=utf-8" })
      res.end(reply.body)
    })().catch((error: unknown) => {
      if (!res.headersSent) {
        res.writeHead(500, { "content-type": "application/json" })
        res.end(JSON.stringify({ ErrorCode: 0, Message: String(error) }))
      }
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve())
  })
  const address = server.address() as AddressInfo
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address
  const requestHost = `${host}:${address.port}`
  const url = `http://${requestHost}`
  const repeat = (count: number, fault: PostmarkSimulator["faults"][number]) => {
    for (let i = 0; i < count; i++) simulator.faults.push(fault)
  }

  return {
    url,
    requestHost,
    serverToken: simulator.serverToken,
    mailerOptions: { serverToken: Redacted.make(simulator.serverToken), baseUrl: url },
    get emails() {
      return [...simulator.emails]
    },
    get requests() {
      return [...simulator.requests]
    },
    failNext: (count, error) => repeat(count, { _tag: "Fail", error }),
    acceptThenDrop: (count = 1) => repeat(count, { _tag: "AcceptThenDrop" }),
    dropNext: (count = 1) => repeat(count, { _tag: "Drop" }),
    delayNext: (count, millis) => repeat(count, { _tag: "Delay", millis }),
    reset: () => simulator.reset(),
    close: async () => {
      simulator.cancelDelays()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}

/**
 * The stand-in as an Effect service: `PostmarkTestServer.layer()` starts it for a
 * layer's lifetime, `PostmarkTestServer.scoped()` for a scope's.
 */
export class PostmarkTestServer extends Context.Tag("@hookgate/mailer-postmark/testing/PostmarkTestServer")<
  PostmarkTestServer,
  PostmarkTestServerShape
>() {
  static readonly start = startPostmarkTestServer

  static scoped(options: PostmarkTestServerOptions = {}): Effect.Effect<PostmarkTestServerShape, never, Scope.Scope> {
    return Effect.acquireRelease(
      Effect.promise(() => startPostmarkTestServer(options)),
      (server) => Effect.promise(() => server.close())
    )
  }

  static layer(options: PostmarkTestServerOptions = {}): Layer.Layer<PostmarkTestServer> {
    return Layer.scoped(PostmarkTestServer, PostmarkTestServer.scoped(options))
  }
}
