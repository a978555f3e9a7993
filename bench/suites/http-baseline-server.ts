import { SqlStore } from "@hookgate/store-sql"
import Database from "better-sqlite3"
import { createHash, createHmac, randomUUID, timingSafeEqual } from "node:crypto"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"

/**
 * The HTTP suite's baseline: a minimal node:http server doing a webhook's work
 * with no framework and no Effect. Per request: Stripe's signature checked with
 * node:crypto (`t=…,v1=…` over `${t}.${body}`, 300 s tolerance, constant-time
 * compare), the JSON parsed, the same two statements as hookgate's SQLite store
 * (insert with a lease, then mark sent) on a WAL file through better-sqlite3, and
 * the same receipt as the gateway's default renderer POSTed to a Resend-like
 * API (`/emails`, bearer key, `Idempotency-Key`) with fetch, as the gateway's
 * Resend mailer does. It answers as the gateway does: 200 `{ status: "sent", orderId }`.
 */

export interface BaselineServerOptions {
  /** The SQLite file; migrated with hookgate's own migrations on start. */
  readonly filename: string
  readonly stripeSecret: string
  /** The Resend-like API, e.g. the bench's `@hookgate/mailer-resend/testing` server. */
  readonly resendUrl: string
  readonly resendApiKey: string
  readonly from: string
}

const TOLERANCE_SECONDS = 300

/** One formatter per currency, as the gateway's renderer keeps them; null where Intl knows no such currency. */
const formatters = new Map<string, Intl.NumberFormat | null>()

/** The gateway's default receipt (packages/node/src/renderer.ts), written out without Effect. */
export const renderReceipt = (from: string, orderKey: string, to: string, product: string | null, amount: number, currency: string) => {
  const code = currency.toUpperCase()
  let formatter = formatters.get(code)
  if (formatter === undefined) {
    try {
      formatter = new Intl.NumberFormat("en", { style: "currency", currency: code })
    } catch {
      formatter = null
    }
    formatters.set(code, formatter)
  }
  const money = formatter === null ? `${(amount / 100).toFixed(2)} ${code}` : formatter.format(amount / 100)
  const what = product ?? "your purchase"
  return {
    from,
    to: [to],
    subject: `Your order: ${what}`,
    text: [
      "Thank you for your order.",
      "",
      `Product: ${what}`,
      `Amount: ${money}`,
      `Order: ${orderKey}`,
      "",
      "Keep this email: it is your receipt."
    ].join("\n")
  }
}

/** Stripe's check: a fresh `t` and one `v1` matching the HMAC-SHA256 of `${t}.${body}`. */
export const verifiedStripe = (header: string | undefined, body: Buffer, secret: string): boolean => {
  if (header === undefined) return false
  let timestamp: string | undefined
  const given: Array<Buffer> = []
  for (const element of header.split(",")) {
    const at = element.indexOf("=")
    const key = element.slice(0, at).trim()
    const value = element.slice(at + 1).trim()
    if (key === "t") timestamp = value
    else if (key === "v1" && value.length === 64) given.push(Buffer.from(value, "hex"))
  }
  if (timestamp === undefined || Math.abs(Date.now() / 1000 - Number(timestamp)) > TOLERANCE_SECONDS) return false
  const expected = createHmac("sha256", secret).update(`${timestamp}.`).update(body).digest()
  return given.some((mac) => mac.length === expected.length && timingSafeEqual(mac, expected))
}

const readBody = (request: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => resolve(Buffer.concat(chunks)))
    request.on("error", reject)
  })

const answer = (response: ServerResponse, status: number, body: unknown) => {
  const text = JSON.stringify(body)
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
  response.end(text)
}

const openBaselineDatabase = (filename: string): Database.Database => {
  const db = new Database(filename)
  db.pragma("journal_mode = WAL")
  db.pragma("busy_timeout = 5000")
  for (const statement of SqlStore.migrations.flatMap((m) => m.statements)) db.exec(statement)
  return db
}

/** What the work of one webhook needs from its JSON, or undefined for an event that asks for no email. */
export const paidSession = (event: any) => {
  const session = event.data.object
  if (event.type !== "checkout.session.completed" || session.payment_status !== "paid") return undefined
  const key = `stripe:${session.id}`
  const email: string = session.customer_details?.email ?? session.customer_email
  const metadata: Record<string, string> = session.metadata ?? {}
  const product = metadata.product_id ?? null
  const hash = createHash("sha256").update(JSON.stringify([email.toLowerCase(), product, session.amount_total, session.currency])).digest("hex")
  return { key, email, metadata, product, hash, amount: session.amount_total as number, currency: session.currency as string }
}

export type PaidOrder = NonNullable<ReturnType<typeof paidSession>>

/**
 * The SQLite file, migrated, and the two statements hookgate's store issues for a
 * delivered order (packages/store-sql/src/sql-store.ts): `claim` inserts it under a
 * fresh lease (false when the key is already stored), `complete` marks it sent.
 */
export interface BaselineStore {
  readonly db: Database.Database
  readonly claim: (eventId: string, eventType: string, order: PaidOrder, token: string, now: number) => boolean
  readonly complete: (key: string, token: string, messageId: string, at: number) => void
}

export const baselineStore = (filename: string): BaselineStore => {
  const db = openBaselineDatabase(filename)
  const insert = db.prepare(`INSERT INTO hookgate_orders (
  order_key, provider, event_id, event_type, email, product, amount, currency, metadata, payload_hash,
  status, attempts, next_attempt_at, lease_token, lease_expires_at, uncertain,
  duplicates_prevented, possible_duplicates, leases_lost, created_at, updated_at
) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?, 0, 0, 0, 0, ?, ?)
ON CONFLICT (order_key) DO NOTHING RETURNING order_key`)
  const complete = db.prepare(`UPDATE hookgate_orders SET status = 'sent', message_id = ?, sent_at = ?, updated_at = ?,
  lease_token = NULL, lease_expires_at = NULL, last_error = NULL, possible_duplicates = possible_duplicates + 0
WHERE order_key = ? AND lease_token = ? RETURNING 0 AS possible_duplicate`)
  return {
    db,
    claim: (eventId: string, eventType: string, order: PaidOrder, token: string, now: number) =>
      insert.get(order.key, "stripe", eventId, eventType, order.email, order.product, order.amount, order.currency,
        JSON.stringify(order.metadata), order.hash, now, token, now + 300_000, now, now) !== undefined,
    complete: (key: string, token: string, messageId: string, at: number) => void complete.get(messageId, at, at, key, token)
  }
}

/** The Resend-like request of the receipt for `order`: path, headers and JSON body. */
export const receiptRequest = (options: BaselineServerOptions, order: PaidOrder) => ({
  url: `${options.resendUrl}/emails`,
  headers: {
    authorization: `Bearer ${options.resendApiKey}`,
    "content-type": "application/json",
    "user-agent": "hookgate-bench-baseline",
    "idempotency-key": `hookgate/order/${order.key}`
  },
  body: JSON.stringify(renderReceipt(options.from, order.key, order.email, order.product, order.amount, order.currency))
})

/** The baseline server, not yet listening; closing it closes the database. */
export const baselineServer = (options: BaselineServerOptions): Server => {
  const store = baselineStore(options.filename)

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    if (request.method !== "POST" || request.url !== "/webhooks/stripe") return answer(response, 404, { status: "not_found" })
    const body = await readBody(request)
    const signature = request.headers["stripe-signature"]
    if (!verifiedStripe(Array.isArray(signature) ? signature.join(", ") : signature, body, options.stripeSecret)) {
      return answer(response, 400, { status: "invalid_signature" })
    }
    const event = JSON.parse(body.toString("utf8"))
    const order = paidSession(event)
    if (order === undefined) return answer(response, 200, { status: "ignored", eventType: event.type })
    const token = randomUUID()
    if (!store.claim(event.id, event.type, order, token, Date.now())) return answer(response, 200, { status: "duplicate", orderId: order.key })
    const receipt = receiptRequest(options, order)
    const sent = await fetch(receipt.url, { method: "POST", headers: receipt.headers, body: receipt.body })
    if (!sent.ok) return answer(response, 500, { status: "retry", orderId: order.key, detail: await sent.text() })
    const { id } = (await sent.json()) as { id: string }
    store.complete(order.key, token, id, Date.now())
    return answer(response, 200, { status: "sent", orderId: order.key })
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) answer(response, 500, { status: "error", detail: String(error) })
    })
  })
  server.on("close", () => store.db.close())
  return server
}
