import * as http from "node:http"
import type { AddressInfo } from "node:net"

/**
 * A stand-in for Stripe's List Events (`GET /v1/events`), written from Stripe's
 * API reference (https://docs.stripe.com/api/events/list,
 * https://docs.stripe.com/api/pagination, https://docs.stripe.com/api/authentication,
 * https://docs.stripe.com/rate-limits): the key as a Bearer token or as Basic
 * auth's user name (401 `invalid_request_error` otherwise); `type`, `types[]`
 * (also `types[0]`, as stripe-node encodes arrays), `created` and
 * `created[gt|gte|lt|lte]`, `limit` 1 to 100 (default 10), cursor pagination
 * with `starting_after` / `ending_before` and `has_more`, newest first; a
 * `Request-Id` header on every answer; scripted 429s and 5xx, and pages that do
 * not decode. Node only.
 */

/** One request the server answered. */
export interface RecordedRequest {
  readonly path: string
  readonly query: URLSearchParams
  readonly status: number
  readonly requestId: string
}

/** A scripted answer for the next requests. */
export type StripeFault =
  | { readonly status: 429 | 500 | 502 | 503 }
  | { readonly malformed: true }

export interface StripeEventsServer {
  /** The base URL, e.g. `http://127.0.0.1:43117`. */
  readonly url: string
  readonly port: number
  readonly apiKey: string
  /** Adds an event (its whole JSON, as the webhook carries it); its `created` (unix s) orders the list. */
  readonly addEvent: (event: { readonly id: string; readonly type: string; readonly created: number } & Record<string, unknown>) => void
  /** The next `count` authorised requests are answered with this fault. */
  readonly failNext: (count: number, fault: StripeFault) => void
  readonly requests: ReadonlyArray<RecordedRequest>
  /** Forgets every event, fault and recorded request. */
  readonly clear: () => void
  readonly close: () => Promise<void>
}

type Event = { readonly id: string; readonly type: string; readonly created: number } & Record<string, unknown>

const error = (type: string, message: string, extra: Record<string, string> = {}) => ({ error: { type, message, ...extra } })

const arrayParam = (query: URLSearchParams, name: string) =>
  Array.from(query.entries()).filter(([key]) => key === name || new RegExp(`^${name}\\[\\d*\\]$`).test(key)).map(([, v]) => v)

/** Starts the stand-in on a free port of 127.0.0.1. Close it when done. */
export const startStripeEventsServer = async (options: { readonly apiKey?: string } = {}): Promise<StripeEventsServer> => {
  const apiKey = options.apiKey ?? "sk_test_hookgate_events_standin_0000000000"
  const events: Array<Event> = []
  const requests: Array<RecordedRequest> = []
  const faults: Array<StripeFault> = []
  let sequence = 0

  const keyOf = (req: http.IncomingMessage): string | undefined => {
    const authorization = req.headers.authorization ?? ""
    const bearer = /^Bearer (\S+)$/.exec(authorization)
    if (bearer !== null) return bearer[1]
    const basic = /^Basic (\S+)$/.exec(authorization)
    return basic === null ? undefined : Buffer.from(basic[1]!, "base64").toString("utf8").split(":")[0]
  }

  const answer = (req: http.IncomingMessage, url: URL): { status: number; body: unknown } => {
    const given = keyOf(req)
    if (given === undefined || given === "") {
      return { status: 401, body: error("invalid_request_error", "You did not provide an API key.") }
    }
    if (given !== apiKey) {
      return { status: 401, body: error("invalid_request_error", `Invalid API Key provided: ${given.slice(0, 8)}****${given.slice(-4)}`) }
    }
    const fault = faults.shift()
    if (fault !== undefined) {
      if ("malformed" in fault) return { status: 200, body: { object: "list", data: "not a list" } }
      return fault.status === 429
        ? { status: 429, body: error("invalid_request_error", "Too many requests.", { code: "rate_limit" }) }
        : { status: fault.status, body: error("api_error", "Something went wrong on Stripe's end.") }
    }
    if (req.method !== "GET" || url.pathname !== "/v1/events") {
      return { status: 404, body: error("invalid_request_error", `Unrecognized request URL (${req.method}: ${url.pathname}).`) }
    }
    const query = url.searchParams
    const limit = query.has("limit") ? Number(query.get("limit")) : 10
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
      return { status: 400, body: error("invalid_request_error", "Invalid integer: limit must be between 1 and 100", { param: "limit" }) }
    }
    const types = [...arrayParam(query, "types"), ...(query.has("type") ? [query.get("type")!] : [])]
    if (query.has("type") && arrayParam(query, "types").length > 0) {
      return { status: 400, body: error("invalid_request_error", "You may only specify one of these parameters: type, types.") }
    }
    const bound = (op: string) => (query.has(`created[${op}]`) ? Number(query.get(`created[${op}]`)) : undefined)
    const exact = query.has("created") ? Number(query.get("created")) : undefined
    const [gt, gte, lt, lte] = [bound("gt"), bound("gte"), bound("lt"), bound("lte")]
    // Newest first; ties by insertion, newest first, as a stable order for the cursor.
    const matching = events
      .map((event, index) => ({ event, index }))
      .filter(({ event }) =>
        (types.length === 0 || types.includes(event.type)) &&
        (exact === undefined || event.created === exact) &&
        (gt === undefined || event.created > gt) && (gte === undefined || event.created >= gte) &&
        (lt === undefined || event.created < lt) && (lte === undefined || event.created <= lte)
      )
      .sort((a, b) => b.event.created - a.event.created || b.index - a.index)
      .map(({ event }) => event)
    const cursor = (name: string) => {
      const id = query.get(name)
      if (id === null) return { ok: true as const, at: undefined }
      const at = matching.findIndex((e) => e.id === id)
      return at < 0 ? { ok: false as const, id } : { ok: true as const, at }
    }
    const after = cursor("starting_after")
    const before = cursor("ending_before")
    if (!after.ok || !before.ok) {
      const id = !after.ok ? after.id : (before as { id: string }).id
      return { status: 400, body: error("invalid_request_error", `No such event: '${id}'`, { param: !after.ok ? "starting_after" : "ending_before" }) }
    }
    let page: Array<Event>
    let hasMore: boolean
    if (before.at !== undefined) {
      const start = Math.max(0, before.at - limit)
      page = matching.slice(start, before.at)
      hasMore = start > 0
    } else {
      const start = after.at === undefined ? 0 : after.at + 1
      page = matching.slice(start, start + limit)
      hasMore = start + limit < matching.length
    }
    return { status: 200, body: { object: "list", data: page, has_more: hasMore, url: "/v1/events" } }
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1")
    req.resume()
    req.on("end", () => {
      const { body, status } = answer(req, url)
      const requestId = `req_standin${String(++sequence).padStart(8, "0")}`
      requests.push({ path: url.pathname, query: url.searchParams, status, requestId })
      res.writeHead(status, { "content-type": "application/json", "request-id": requestId })
      res.end(JSON.stringify(body))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    apiKey,
    addEvent: (event) => void events.push(event),
    failNext: (count, fault) => {
      for (let i = 0; i < count; i++) faults.push(fault)
    },
    requests,
    clear: () => {
      events.length = 0
      faults.length = 0
      requests.length = 0
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections()
        server.close((e) => (e ? reject(e) : resolve()))
      })
  }
}
