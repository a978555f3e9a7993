import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import type { ResendOptions } from "../options.js"
import { type IncomingRequest, ResendSimulator } from "./simulator.js"
import type { AcceptedEmail, RecordedRequest, ResendErrorReply, ResendTestServerOptions } from "./types.js"

export interface ResendTestServerShape {
  /** The base URL, e.g. `http://127.0.0.1:43117`. */
  readonly url: string
  readonly apiKey: string
  /** `{ apiKey, baseUrl }` for the mailer: `layer({ ...server.mailerOptions, timeout: "1 second" })`. */
  readonly mailerOptions: ResendOptions
  /** The emails accepted so far, in order (a replay under a known key adds none). */
  readonly emails: ReadonlyArray<AcceptedEmail>
  /** Every request so far, in order, with how it was answered. */
  readonly requests: ReadonlyArray<RecordedRequest>
  /** The next `count` requests fail with this error (not cached under their key). */
  readonly failNext: (count: number, error: ResendErrorReply) => void
  /** The next `count` requests are accepted, then the connection is closed without an answer. */
  readonly acceptThenDrop: (count?: number) => void
  /** The next `count` requests are dropped without being accepted. */
  readonly dropNext: (count?: number) => void
  /** The next `count` requests wait `millis` before being handled (their key is in flight meanwhile). */
  readonly delayNext: (count: number, millis: number) => void
  /** Forgets emails, requests, faults, keys and the rate window. */
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

const headersOf = (request: http.IncomingMessage): Record<string, string | undefined> => {
  const headers: Record<string, string | undefined> = {}
  for (const [name, value] of Object.entries(request.headers)) {
    headers[name] = Array.isArray(value) ? value.join(", ") : value
  }
  return headers
}

/** Starts a Resend-like server on a local port (Node only). Close it when done. */
export const startResendTestServer = async (options: ResendTestServerOptions = {}): Promise<ResendTestServerShape> => {
  const simulator = new ResendSimulator(options)
  const server = http.createServer((req, res) => {
    void (async () => {
      const incoming: IncomingRequest = {
        method: req.method ?? "GET",
        path: new URL(req.url ?? "/", "http://localhost").pathname,
        headers: headersOf(req),
        body: await readBody(req)
      }
      const reply = await simulator.handle(incoming)
      if (reply._tag === "Drop") {
        req.socket.destroy()
        return
      }
      res.writeHead(reply.status, reply.headers)
      res.end(reply.body)
    })().catch((error: unknown) => {
      if (!res.headersSent) {
        res.writeHead(500, { "content-type": "application/json" })
        res.end(JSON.stringify({ statusCode: 500, name: "application_error", message: String(error) }))
      }
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve())
  })
  const address = server.address() as AddressInfo
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address
  const url = `http://${host}:${address.port}`
  const repeat = (count: number, fault: ResendSimulator["faults"][number]) => {
    for (let i = 0; i < count; i++) simulator.faults.push(fault)
  }

  return {
    url,
    apiKey: simulator.apiKey,
    mailerOptions: { apiKey: Redacted.make(simulator.apiKey), baseUrl: url },
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
 * The test server as an Effect service: `ResendTestServer.layer()` starts it
 * for a layer's lifetime, `ResendTestServer.scoped()` for a scope's.
 */
export class ResendTestServer extends Context.Tag("@hookgate/mailer-resend/testing/ResendTestServer")<
  ResendTestServer,
  ResendTestServerShape
>() {
  static readonly start = startResendTestServer

  static scoped(options: ResendTestServerOptions = {}): Effect.Effect<ResendTestServerShape, never, Scope.Scope> {
    return Effect.acquireRelease(
      Effect.promise(() => startResendTestServer(options)),
      (server) => Effect.promise(() => server.close())
    )
  }

  static layer(options: ResendTestServerOptions = {}): Layer.Layer<ResendTestServer> {
    return Layer.scoped(ResendTestServer, ResendTestServer.scoped(options))
  }
}
