import { hmacSha256, importHmacKey, toHex, utf8, WebhookRequest } from "@hookgate/core/providers"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { SIGNATURE_HEADER } from "./signature.js"

/**
 * @hookgate/provider-lemonsqueezy/testing: sign bodies as Lemon Squeezy does,
 * and build the events hookgate reads, for tests and demos.
 */

type Secret = Redacted.Redacted<string> | string
const reveal = (secret: Secret) => (typeof secret === "string" ? secret : Redacted.value(secret))
const bytesOf = (body: string | Uint8Array) => (typeof body === "string" ? utf8(body) : body)

/** The `X-Signature` value: hex HMAC-SHA256 of the body, keyed with the signing secret's UTF-8 bytes. */
export const lemonSqueezySignature = (secret: Secret, body: string | Uint8Array) =>
  Effect.flatMap(importHmacKey(reveal(secret)), (key) => Effect.map(hmacSha256(key, bytesOf(body)), toHex))

/** The event name a body carries in `meta.event_name`, for the `X-Event-Name` header; undefined when it has none. */
const eventNameOf = (body: string | Uint8Array): string | undefined => {
  try {
    const name = (JSON.parse(typeof body === "string" ? body : new TextDecoder().decode(body)) as { meta?: { event_name?: unknown } })
      .meta?.event_name
    return typeof name === "string" ? name : undefined
  } catch {
    return undefined
  }
}

/** A request carrying `body` as Lemon Squeezy would send it: `X-Signature`, and `X-Event-Name` when the body names one. */
export const signLemonSqueezyRequest = (secret: Secret, body: string | Uint8Array) =>
  Effect.map(lemonSqueezySignature(secret, body), (signature) => {
    const eventName = eventNameOf(body)
    return WebhookRequest.fromParts(bytesOf(body), {
      "content-type": "application/json",
      ...(eventName === undefined ? {} : { "x-event-name": eventName }),
      [SIGNATURE_HEADER]: signature
    })
  })

/** The fields of an order the tests vary. */
export interface OrderFields {
  readonly orderId: string
  readonly status?: "pending" | "failed" | "paid" | "refunded" | "partial_refund" | "fraudulent"
  readonly email?: string
  readonly total?: number
  readonly currency?: string
  readonly productId?: number
  readonly customData?: Record<string, unknown>
  readonly testMode?: boolean
}

/** The JSON body of an order event (`order_created` by default), shaped as Lemon Squeezy documents it. */
export const orderEvent = (order: OrderFields, eventName = "order_created"): string => {
  const total = order.total ?? 1199
  const status = order.status ?? "paid"
  return JSON.stringify({
    meta: {
      event_name: eventName,
      test_mode: order.testMode ?? false,
      ...(order.customData === undefined ? {} : { custom_data: order.customData })
    },
    data: {
      type: "orders",
      id: order.orderId,
      attributes: {
        store_id: 1,
        customer_id: 1,
        identifier: "104e18a2-d755-4d4b-80c4-a6c1dcbe1c10",
        order_number: 1,
        user_name: "Ada Buyer",
        user_email: order.email ?? "buyer@example.com",
        currency: order.currency ?? "USD",
        currency_rate: "1.0000",
        subtotal: total,
        discount_total: 0,
        tax: 0,
        total,
        status,
        status_formatted: status.charAt(0).toUpperCase() + status.slice(1),
        refunded: status === "refunded",
        refunded_at: null,
        first_order_item: {
          id: 1,
          order_id: Number(order.orderId) || 1,
          product_id: order.productId ?? 1,
          variant_id: 1,
          product_name: "Course",
          variant_name: "Default",
          price: total,
          test_mode: order.testMode ?? false
        },
        urls: { receipt: "https://app.lemonsqueezy.com/my-orders/104e18a2-d755-4d4b-80c4-a6c1dcbe1c10" },
        test_mode: order.testMode ?? false,
        created_at: "2025-10-09T08:53:20.000000Z",
        updated_at: "2025-10-09T08:53:20.000000Z"
      }
    }
  })
}

/** The JSON body of any other Lemon Squeezy event (a subscription, a license key, …). */
export const lemonSqueezyEvent = (eventName: string, type: string, id: string, attributes: Record<string, unknown> = {}): string =>
  JSON.stringify({ meta: { event_name: eventName, test_mode: false }, data: { type, id, attributes } })
