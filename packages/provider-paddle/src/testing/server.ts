import * as http from "node:http"
import type { AddressInfo } from "node:net"

/**
 * A stand-in for the part of Paddle's API hookgate calls, `GET /customers/{customer_id}`,
 * written from Paddle's API reference: Bearer authentication (403
 * `authentication_missing`, `authentication_malformed`, `invalid_token`), 404
 * `not_found`, 429 `too_many_requests` with `Retry-After`, and Paddle's error
 * body `{ error: { type, code, detail, documentation_url }, meta: { request_id } }`.
 * Node only.
 */

/** One request the server answered. */
export interface RecordedRequest {
  readonly method: string
  readonly path: string
  readonly status: number
  /** Whether it carried the server's API key as a Bearer token. */
  readonly authorized: boolean
}

/** A scripted failure for the next requests. */
export interface PaddleFault {
  readonly status: number
  readonly code: string
  /** Seconds, sent as `Retry-After`. */
  readonly retryAfter?: number
}

export interface PaddleTestServer {
  /** The base URL, e.g. `http://127.0.0.1:43117`. */
  readonly url: string
  readonly apiKey: string
  /** Adds a customer (an email, or none to answer a record without one) and answers its `ctm_…` id. */
  readonly addCustomer: (customer: { readonly email?: string; readonly name?: string }) => string
  /** Changes a customer's email, as an update in Paddle would. */
  readonly setEmail: (customerId: string, email: string) => void
  /** The next `count` requests are answered with this error. */
  readonly failNext: (count: number, fault: PaddleFault) => void
  /** Every request so far, in order. */
  readonly requests: ReadonlyArray<RecordedRequest>
  readonly close: () => Promise<void>
}

const DOCS = "https://developer.paddle.com/errors"
const CUSTOMER_PATH = /^\/customers\/([^/]+)$/
const CUSTOMER_ID = /^ctm_[a-z\d]{26}$/

const errorBody = (type: string, code: string, detail: string) => ({
  error: { type, code, detail, documentation_url: `${DOCS}/shared/${code}` },
  meta: { request_id: crypto.randomUUID() }
})

/** Starts the stand-in on a free port of 127.0.0.1. Close it when done. */
export const startPaddleTestServer = async (
  options: { readonly apiKey?: string } = {}
): Promise<PaddleTestServer> => {
  const apiKey = options.apiKey ?? "pdl_sdbx_apikey_01h8bkrfe7w1vwf8xmytwn51ec_hookgateTestKey"
  const customers = new Map<string, { email?: string; name: string; createdAt: string }>()
  const requests: Array<RecordedRequest> = []
  const faults: Array<PaddleFault> = []
  let next = 0

  const answer = (req: http.IncomingMessage): { status: number; body: unknown; headers?: Record<string, string> } => {
    const authorization = req.headers.authorization
    if (authorization === undefined) return { status: 403, body: errorBody("request_error", "authentication_missing", "Authentication header missing.") }
    const bearer = /^Bearer (\S+)$/.exec(authorization)
    if (bearer === null) return { status: 403, body: errorBody("request_error", "authentication_malformed", "Authentication header included, but incorrectly formatted.") }
    if (bearer[1] !== apiKey) return { status: 403, body: errorBody("request_error", "invalid_token", "Invalid or revoked API key.") }
    const fault = faults.shift()
    if (fault !== undefined) {
      return {
        status: fault.status,
        body: errorBody(fault.status >= 500 ? "api_error" : "request_error", fault.code, `scripted ${fault.code}`),
        ...(fault.retryAfter === undefined ? {} : { headers: { "retry-after": String(fault.retryAfter) } })
      }
    }
    const path = new URL(req.url ?? "/", "http://localhost").pathname
    const match = req.method === "GET" ? CUSTOMER_PATH.exec(path) : null
    const customer = match !== null && CUSTOMER_ID.test(match[1]!) ? customers.get(match[1]!) : undefined
    if (match === null || customer === undefined) {
      return { status: 404, body: errorBody("request_error", "not_found", `Entity ${match?.[1] ?? path} not found`) }
    }
    return {
      status: 200,
      body: {
        data: {
          id: match[1],
          name: customer.name,
          ...(customer.email === undefined ? {} : { email: customer.email }),
          marketing_consent: false,
          status: "active",
          custom_data: null,
          locale: "en",
          created_at: customer.createdAt,
          updated_at: customer.createdAt,
          import_meta: null
        },
        meta: { request_id: crypto.randomUUID() }
      }
    }
  }

  const server = http.createServer((req, res) => {
    req.resume()
    req.on("end", () => {
      const { body, headers, status } = answer(req)
      requests.push({
        method: req.method ?? "GET",
        path: new URL(req.url ?? "/", "http://localhost").pathname,
        status,
        authorized: req.headers.authorization === `Bearer ${apiKey}`
      })
      res.writeHead(status, { "content-type": "application/json", ...headers })
      res.end(JSON.stringify(body))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}`,
    apiKey,
    addCustomer: ({ email, name }) => {
      const id = `ctm_${(next++).toString(36).padStart(26, "0")}`
      customers.set(id, { ...(email === undefined ? {} : { email }), name: name ?? "Ada Buyer", createdAt: new Date(0).toISOString() })
      return id
    },
    setEmail: (customerId, email) => {
      const customer = customers.get(customerId)
      if (customer !== undefined) customer.email = email
    },
    failNext: (count, fault) => {
      for (let i = 0; i < count; i++) faults.push(fault)
    },
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections()
        server.close((error) => (error ? reject(error) : resolve()))
      })
  }
}
