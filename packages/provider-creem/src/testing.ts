import { hmacSha256, importHmacKey, toHex, utf8, WebhookRequest } from "@hookgate/core/providers"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { SIGNATURE_HEADER } from "./signature.js"

/**
 * @hookgate/provider-creem/testing: sign bodies as Creem does, and build the
 * events hookgate reads, for tests and demos.
 */

type Secret = Redacted.Redacted<string> | string
const reveal = (secret: Secret) => (typeof secret === "string" ? secret : Redacted.value(secret))
const bytesOf = (body: string | Uint8Array) => (typeof body === "string" ? utf8(body) : body)

/** The `creem-signature` value: hex HMAC-SHA256 of the body, keyed with the secret string as given. */
export const creemSignature = (secret: Secret, body: string | Uint8Array) =>
  Effect.flatMap(importHmacKey(reveal(secret)), (key) => Effect.map(hmacSha256(key, bytesOf(body)), toHex))

/** A request carrying `body` as Creem would send it, signed with `secret`. */
export const signCreemRequest = (secret: Secret, body: string | Uint8Array) =>
  Effect.map(creemSignature(secret, body), (signature) =>
    WebhookRequest.fromParts(bytesOf(body), {
      "content-type": "application/json",
      [SIGNATURE_HEADER]: signature
    }))

/** The fields of a `checkout.completed` event the tests vary. */
export interface CheckoutFields {
  readonly orderId: string
  readonly email?: string
  readonly productId?: string
  readonly amount?: number
  readonly currency?: string
  readonly metadata?: Record<string, unknown>
}

/** The JSON body of a `checkout.completed` event, shaped as Creem documents it (with fields hookgate ignores). */
export const checkoutCompletedEvent = (eventId: string, checkout: CheckoutFields): string => {
  const productId = checkout.productId ?? "prod_d1AY2Sadk9YAvLI0pj97f"
  const amount = checkout.amount ?? 1000
  const currency = checkout.currency ?? "EUR"
  return JSON.stringify({
    id: eventId,
    eventType: "checkout.completed",
    created_at: 1_728_734_325_927,
    object: {
      id: "ch_4l0N34kxo16AhRKUHFUuXr",
      object: "checkout",
      request_id: "my-request-id",
      order: {
        id: checkout.orderId,
        customer: "cust_1OcIK1GEuVvXZwD19tjq2z",
        product: productId,
        amount,
        currency,
        status: "paid",
        type: "onetime",
        created_at: "2024-10-12T11:58:33.097Z",
        updated_at: "2024-10-12T11:58:33.097Z",
        mode: "test"
      },
      product: { id: productId, name: "Course", price: amount, currency, billing_type: "onetime", status: "active", mode: "test" },
      customer: { id: "cust_1OcIK1GEuVvXZwD19tjq2z", object: "customer", email: checkout.email ?? "buyer@example.com", name: "Ada Buyer", country: "NL" },
      status: "completed",
      metadata: checkout.metadata ?? {},
      mode: "test"
    }
  })
}

/** The JSON body of any other Creem event (a refund, a subscription change, …). */
export const creemEvent = (eventId: string, eventType: string, object: unknown = {}): string =>
  JSON.stringify({ id: eventId, eventType, created_at: 1_728_734_325_927, object })

export {
  type CreemFault,
  type CreemRecordedRequest,
  type CreemTransaction,
  type CreemTransactionsServer,
  startCreemTransactionsServer
} from "./testing/transactions-server.js"
