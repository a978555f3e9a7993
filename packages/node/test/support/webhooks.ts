import { checkoutCompletedEvent, creemEvent, creemSignature } from "@hookgate/provider-creem/testing"
import { checkoutSessionEvent, stripeSignatureHeader } from "@hookgate/provider-stripe/testing"
import { Effect } from "effect"
import { CREEM_SECRET, STRIPE_SECRET } from "./gateway-process.js"

/** Signed requests as Stripe and Creem send them, for the gateway under test. */

/** Reads a field of a JSON body, or undefined for a body that is not JSON (tests send some). */
const field = (body: string, read: (json: any) => string | undefined) => {
  try {
    return read(JSON.parse(body))
  } catch {
    return undefined
  }
}

export interface Signed {
  readonly provider: "stripe" | "creem"
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
