import { randomUUID } from "node:crypto"
import * as http from "node:http"
import type { AddressInfo } from "node:net"

/**
 * A stand-in for Creem's transactions search and customer lookup, written from Creem's
 * API reference (https://docs.creem.io/api-reference/endpoint/get-transactions,
 * https://docs.creem.io/api-reference/endpoint/get-customer): the key in `x-api-key`
 * (none: 401, a wrong one: 403, each with Creem's error body and its `trace_id`);
 * `GET /v1/transactions/search?page_number=…&page_size=…` (defaults 1 and 10, newest
 * first) answering `items` and `pagination { total_records, total_pages, current_page,
 * next_page, prev_page }`; `GET /v1/customers?customer_id=…` answering the customer
 * (404 when unknown); scripted 429s and 5xx, and pages that do not decode. Node only.
 */

/** A transaction as Creem lists it (the fields hookgate reads, and a few more). */
export interface CreemTransaction {
  readonly id: string
  readonly status: string
  readonly order: string | null
  readonly customer: string | null
  readonly amount: number
  readonly currency: string
  /** Epoch milliseconds. */
  readonly created_at: number
}

/** A scripted answer for the next requests. */
export type CreemFault = { readonly status: 429 | 500 | 502 | 503 } | { readonly malformed: true }

/** One request the server answered. */
export interface CreemRecordedRequest {
  readonly path: string
  readonly query: URLSearchParams
  readonly status: number
  readonly apiKey: string | undefined
}

export interface CreemTransactionsServer {
  /** The base URL, e.g. `http://127.0.0.1:43117`: `CREEM_API_BASE`. */
  readonly url: string
  readonly apiKey: string
  /** Adds a transaction (paid or not) and, when given, its customer's email. */
  readonly addTransaction: (transaction: CreemTransaction, email?: string) => void
  /** The next `count` authorised requests are answered with this fault. */
  readonly failNext: (count: number, fault: CreemFault) => void
  readonly requests: ReadonlyArray<CreemRecordedRequest>
  readonly close: () => Promise<void>
}

const errorBody = (status: number, error: string, message: string) => ({
  trace_id: randomUUID(),
  status,
  error,
  message: [message],
  timestamp: Date.now()
})

/** Starts the stand-in on a free port of 127.0.0.1. Close it when done. */
export const startCreemTransactionsServer = async (
  options: { readonly apiKey?: string } = {}
): Promise<CreemTransactionsServer> => {
  const apiKey = options.apiKey ?? "creem_test_hookgate_standin_0000000000"
  const transactions: Array<CreemTransaction> = []
  const emails = new Map<string, string>()
  const requests: Array<CreemRecordedRequest> = []
  const faults: Array<CreemFault> = []

  const answer = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" })
    res.end(typeof body === "string" ? body : JSON.stringify(body))
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://stand-in")
    const key = req.headers["x-api-key"]
    const given = Array.isArray(key) ? key[0] : key
    const reply = (status: number, body: unknown) => {
      requests.push({ path: url.pathname, query: url.searchParams, status, apiKey: given })
      answer(res, status, body)
    }
    if (req.method !== "GET") return reply(405, errorBody(405, "Method Not Allowed", "GET only"))
    if (given === undefined || given === "") return reply(401, errorBody(401, "Unauthorized", "Missing API key"))
    if (given !== apiKey) return reply(403, errorBody(403, "Forbidden", "Invalid API key"))
    const fault = faults.shift()
    if (fault !== undefined) {
      return "malformed" in fault
        ? reply(200, { trace_id: randomUUID(), items: "not a list", pagination: {} })
        : reply(fault.status, errorBody(fault.status, "Error", "try again"))
    }
    if (url.pathname === "/v1/transactions/search") {
      const number = Number(url.searchParams.get("page_number") ?? "1")
      const size = Number(url.searchParams.get("page_size") ?? "10")
      if (!Number.isInteger(number) || number < 1 || !Number.isInteger(size) || size < 1 || size > 100) {
        return reply(400, errorBody(400, "Bad Request", "page_number must be ≥ 1, page_size 1 to 100"))
      }
      const newestFirst = [...transactions].sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : -1))
      const pages = Math.max(1, Math.ceil(newestFirst.length / size))
      return reply(200, {
        items: newestFirst.slice((number - 1) * size, number * size).map((t) => ({ object: "transaction", mode: "test", type: "payment", ...t })),
        pagination: {
          total_records: newestFirst.length,
          total_pages: pages,
          current_page: number,
          next_page: number < pages ? number + 1 : null,
          prev_page: number > 1 ? number - 1 : null
        }
      })
    }
    if (url.pathname === "/v1/customers") {
      const id = url.searchParams.get("customer_id") ?? ""
      const email = emails.get(id)
      return email === undefined
        ? reply(404, errorBody(404, "Not Found", "Customer not found"))
        : reply(200, { id, mode: "test", object: "customer", email, country: "US", created_at: "2026-01-01T00:00:00Z", updated_at: "2026-01-01T00:00:00Z" })
    }
    return reply(404, errorBody(404, "Not Found", "no such route"))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    apiKey,
    addTransaction: (transaction, email) => {
      transactions.push(transaction)
      if (email !== undefined && transaction.customer !== null) emails.set(transaction.customer, email)
    },
    failNext: (count, fault) => {
      for (let i = 0; i < count; i++) faults.push(fault)
    },
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}
