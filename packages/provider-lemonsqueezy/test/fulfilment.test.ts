import { VerifiedEvent } from "@hookgate/core/providers"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { LemonSqueezy } from "../src/index.js"
import { lemonSqueezyEvent, orderEvent } from "../src/testing.js"
import { failureOf } from "./support.js"

const fulfil = LemonSqueezy.fulfilment
const eventOf = (json: string) => {
  const payload = JSON.parse(json) as { meta: { event_name: string } }
  return new VerifiedEvent({ provider: "lemonsqueezy", id: "e", type: payload.meta.event_name, payload })
}

describe("lemon squeezy: events to fulfilments", () => {
  it.effect("a paid order_created becomes lemonsqueezy:<order id> with its email, product, total, currency and custom data", () =>
    Effect.gen(function*() {
      const event = eventOf(orderEvent({
        orderId: "1001",
        email: "ada@example.com",
        total: 4900,
        currency: "EUR",
        productId: 77,
        customData: { user_id: "u_1", visits: 42, gone: null }
      }))
      expect({ ...Option.getOrThrow(yield* fulfil(event)) }).toEqual({
        orderKey: "lemonsqueezy:1001",
        email: "ada@example.com",
        product: "77",
        amount: 4900,
        currency: "EUR",
        metadata: { user_id: "u_1", visits: "42" }
      })
    }))

  it.effect("a test-mode order says so in its metadata; without custom data or an order item the rest is empty", () =>
    Effect.gen(function*() {
      const test = Option.getOrThrow(yield* fulfil(eventOf(orderEvent({ orderId: "2", testMode: true }))))
      expect(test.metadata).toEqual({ test_mode: "true" })
      const bare = JSON.parse(orderEvent({ orderId: "3" }))
      delete bare.data.attributes.first_order_item
      expect(Option.getOrThrow(yield* fulfil(eventOf(JSON.stringify(bare))))).toMatchObject({ product: null, metadata: {} })
    }))

  it.effect("an order_created in any status but paid is None, before its other fields are read", () =>
    Effect.gen(function*() {
      for (const status of ["pending", "failed", "refunded", "partial_refund", "fraudulent"] as const) {
        expect(yield* fulfil(eventOf(orderEvent({ orderId: "4", status })))).toEqual(Option.none())
      }
      // A pending order missing the fields a paid one has is still just None.
      const sparse = JSON.stringify({ meta: { event_name: "order_created" }, data: { type: "orders", id: "5", attributes: { status: "pending" } } })
      expect(yield* fulfil(eventOf(sparse))).toEqual(Option.none())
    }))

  it.effect("refunds, subscription and license key events, and unknown types are None", () =>
    Effect.gen(function*() {
      for (
        const [name, type] of [
          ["order_refunded", "orders"],
          ["subscription_created", "subscriptions"],
          ["subscription_payment_success", "subscription-invoices"],
          ["subscription_payment_refunded", "subscription-invoices"],
          ["license_key_created", "license-keys"],
          ["something_added_later", "things"]
        ] as const
      ) {
        expect(yield* fulfil(eventOf(lemonSqueezyEvent(name, type, "9", { status: "paid" })))).toEqual(Option.none())
      }
    }))

  it.effect("a paid order that does not decode is MalformedPayload naming the field and the order id", () =>
    Effect.gen(function*() {
      const broken = JSON.parse(orderEvent({ orderId: "6" }))
      broken.data.attributes.total = "11.99"
      const error = yield* failureOf(fulfil(eventOf(JSON.stringify(broken))))
      expect(error).toMatchObject({ _tag: "MalformedPayload", provider: "lemonsqueezy", objectId: "6" })
      expect(error.detail).toContain("total")
    }))
})
