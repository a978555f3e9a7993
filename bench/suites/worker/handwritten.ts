// The baseline of the worker suite: a Worker written by hand, without Effect or any
// dependency, doing the work the example Worker does for a paid Checkout Session:
// the Stripe signature checked with Web Crypto, the order inserted in D1 (once per
// key), the buyer's email handed to the `send_email` binding, the order marked sent.
// Compiled by tsc to one ES module with no imports, which Miniflare loads as is (its
// signature check is the Effect Workers' too, through effect-webhook.ts). Its
// table (`handwritten_orders`) is created by the suite before the first request.

export interface D1Result {
  readonly meta: { readonly changes: number }
}
export interface D1PreparedStatement {
  bind(...values: ReadonlyArray<unknown>): D1PreparedStatement
  run(): Promise<D1Result>
}
export interface D1Database {
  prepare(query: string): D1PreparedStatement
}
export interface SendEmail {
  send(message: {
    readonly from: { readonly email: string; readonly name: string }
    readonly to: string
    readonly subject: string
    readonly text: string
    readonly headers: Readonly<Record<string, string>>
  }): Promise<{ readonly messageId: string }>
}
export interface Env {
  readonly DB: D1Database
  readonly EMAIL: SendEmail
  readonly STRIPE_WEBHOOK_SECRET: string
}

const TOLERANCE_SECONDS = 300
const encoder = new TextEncoder()
let hmacKey: Promise<CryptoKey> | undefined

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } })

const hexToBytes = (hex: string) => {
  if (!/^[0-9a-f]{64}$/.test(hex)) return undefined
  const bytes = new Uint8Array(32)
  for (let i = 0; i < 32; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16)
  return bytes
}

/** Stripe's scheme: `t=…,v1=…` over `${t}.${body}`, HMAC-SHA256, within five minutes (the Effect Workers' too). */
export const verified = async (secret: string, header: string | null | undefined, body: string) => {
  if (header === null || header === undefined) return false
  let timestamp = ""
  const signatures: Array<Uint8Array<ArrayBuffer>> = []
  for (const part of header.split(",")) {
    const [name, value] = part.split("=", 2)
    if (name === "t" && value !== undefined) timestamp = value
    if (name === "v1" && value !== undefined) {
      const bytes = hexToBytes(value)
      if (bytes !== undefined) signatures.push(bytes)
    }
  }
  const seconds = Number(timestamp)
  if (!Number.isInteger(seconds) || Math.abs(Date.now() / 1000 - seconds) > TOLERANCE_SECONDS) return false
  hmacKey ??= crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["verify"])
  const key = await hmacKey
  const content = encoder.encode(`${timestamp}.${body}`)
  for (const signature of signatures) {
    if (await crypto.subtle.verify("HMAC", key, signature, content)) return true
  }
  return false
}

interface CheckoutEvent {
  readonly type?: string
  readonly data?: {
    readonly object?: { readonly id?: string; readonly payment_status?: string; readonly customer_details?: { readonly email?: string } }
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    if (request.method !== "POST" || new URL(request.url).pathname !== "/webhooks/stripe") return json(404, { status: "not_found" })
    const body = await request.text()
    if (!(await verified(env.STRIPE_WEBHOOK_SECRET, request.headers.get("stripe-signature"), body))) {
      return json(401, { status: "unauthorized" })
    }
    const event = JSON.parse(body) as CheckoutEvent
    const session = event.data?.object
    const email = session?.customer_details?.email
    if (event.type !== "checkout.session.completed" || session?.payment_status !== "paid" || !session.id || !email) {
      return json(200, { status: "ignored" })
    }
    const orderKey = `stripe:${session.id}`
    const inserted = await env.DB.prepare(
      "INSERT INTO handwritten_orders (order_key, email, status, created_at) VALUES (?, ?, 'sending', ?) ON CONFLICT DO NOTHING"
    ).bind(orderKey, email, Date.now()).run()
    if (inserted.meta.changes === 0) return json(200, { status: "duplicate", orderId: orderKey })
    await env.EMAIL.send({
      from: { email: "shop@example.com", name: "Example Shop" },
      to: email,
      subject: "Your order is ready",
      text: `Thank you! Your order ${orderKey} is ready.`,
      headers: { "X-Idempotency-Key": orderKey }
    })
    await env.DB.prepare("UPDATE handwritten_orders SET status = 'sent', sent_at = ? WHERE order_key = ?")
      .bind(Date.now(), orderKey)
      .run()
    return json(200, { status: "sent", orderId: orderKey })
  }
}
