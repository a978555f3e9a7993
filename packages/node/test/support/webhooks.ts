import { checkoutCompletedEvent, creemEvent, creemSignature } from "@hookgate/provider-creem/testing"
import { lemonSqueezyEvent, orderEvent, signLemonSqueezyRequest } from "@hookgate/provider-lemonsqueezy/testing"
import { signPaddleRequest, transactionEvent } from "@hookgate/provider-paddle/testing"
import { checkoutSessionEvent, stripeSignatureHeader } from "@hookgate/provider-stripe/testing"
import { Effect } from "effect"
import { CREEM_SECRET, LEMONSQUEEZY_SECRET, PADDLE_SECRET, STRIPE_SECRET } from "./gateway-process.js"

/** Signed requests as Stripe, Creem, Lemon Squeezy and Paddle send them, for the gateway under test. */

/** Reads a field of a JSON body, or undefined for a body that is not JSON (tests send some). */
const field = (body: string, read: (json: any) => string | undefined) => {
  try {
    return read(JSON.parse(body))
  } catch {
    return undefined
  }
}

export interface Signed {
  readonly provider: "stripe" | "creem" | "lemonsqueezy" | "paddle"
  readonly orderKey: string
  readonly body: string
  readonly headers: Record<string, string>
}

export const stripeBody = (id: string, email = `${id}@example.com`, type: "checkout.session.completed" | "checkout.session.expired" = "checkout.session.completed") =>
  checkoutSessionEvent(`evt_${id}_${email.length}_${type.length}`, type, { id: `cs_test_${id}`, email, amountTotal: 4900, currency: "usd" })

export const signStripe = (body: string, secret = STRIPE_SECRET): Promise<Signed> =>
  Effect.runPromise(stripeSignatureHeader(secret, body)).then((signature) => ({
    provider: "stripe" as const,
    orderKey: `stripe:${field(body, (json) => json.data?.object?.id)}`,
    body,
    headers: { "content-type": "application/json", "stripe-signature": signature }
  }))

export const creemBody = (id: string, email = `${id}@example.com`) =>
  checkoutCompletedEvent(`evt_${id}_${email.length}`, { orderId: `ord_${id}`, email, amount: 2900, currency: "EUR" })

export const creemOtherBody = (id: string) => creemEvent(`evt_${id}`, "refund.created", { id: `ref_${id}` })

export const signCreem = (body: string, secret = CREEM_SECRET): Promise<Signed> =>
  Effect.runPromise(creemSignature(secret, body)).then((signature) => ({
    provider: "creem" as const,
    orderKey: `creem:${field(body, (json) => json.object?.order?.id)}`,
    body,
    headers: { "content-type": "application/json", "creem-signature": signature }
  }))

/** A paid Lemon Squeezy `order_created` (order ids are numbers at Lemon Squeezy, text in its JSON:API body). */
export const lemonSqueezyBody = (orderId: string, email = `lemon-${orderId}@example.com`) => orderEvent({ orderId, email, total: 1199 })

/** A Lemon Squeezy event hookgate does not send for. */
export const lemonSqueezyRefundBody = (orderId: string) => lemonSqueezyEvent("order_refunded", "orders", orderId, { status: "refunded" })

export const signLemonSqueezy = (body: string, secret = LEMONSQUEEZY_SECRET): Promise<Signed> =>
  Effect.runPromise(signLemonSqueezyRequest(secret, body)).then((request) => ({
    provider: "lemonsqueezy" as const,
    orderKey: `lemonsqueezy:${field(body, (json) => json.data?.id)}`,
    body,
    headers: { ...request.headers }
  }))

/** A Paddle transaction event for `customerId` (whose email the gateway fetches from Paddle's API). */
export const paddleBody = (
  transactionId: string,
  customerId: string,
  type: "transaction.paid" | "transaction.completed" = "transaction.completed"
) => transactionEvent(`evt_${transactionId}_${type.length}`, type, { id: transactionId, customerId, grandTotal: 2900, currency: "USD" })

/** Signed now, as Paddle signs each delivery (its 5-second tolerance makes an old signature stale). */
export const signPaddle = (body: string, secret = PADDLE_SECRET): Promise<Signed> =>
  Effect.runPromise(signPaddleRequest(secret, body)).then((request) => ({
    provider: "paddle" as const,
    orderKey: `paddle:${field(body, (json) => json.data?.id)}`,
    body,
    headers: { ...request.headers }
  }))

export const post = async (url: string, path: string, request: { body: string; headers: Record<string, string> }) => {
  const response = await fetch(`${url}${path}`, { method: "POST", body: request.body, headers: request.headers })
  const text = await response.text()
  let body: Record<string, unknown>
  try {
    body = JSON.parse(text)
  } catch {
    body = { raw: text }
  }
  return { status: response.status, body }
}

export const deliver = (url: string, signed: Signed) => post(url, `/webhooks/${signed.provider}`, signed)

export const admin = async (url: string, path: string, init: RequestInit = {}, token = "test-admin-token") => {
  const response = await fetch(`${url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...(init.headers ?? {}) }
  })
  return { status: response.status, body: (await response.json()) as any }
}
