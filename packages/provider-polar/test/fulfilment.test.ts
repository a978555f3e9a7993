import { VerifiedEvent } from "@hookgate/core/providers"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { Polar } from "../src/index.js"
import { orderEvent, polarEvent } from "../src/testing.js"
import { failureOf } from "./support.js"

const fulfil = Polar.fulfilment
const eventOf = (json: string) => {
  const payload = JSON.parse(json) as { type: string }
  return new VerifiedEvent({ provider: "polar", id: "msg_1", type: payload.type, payload })
}

describe("polar: events to fulfilments", () => {
  it.effect("a paid order.paid becomes polar:<order id> with the customer's email, product, total, currency and metadata", () =>
    Effect.gen(function*() {
      const event = eventOf(orderEvent({
        orderId: "ord_9",
        email: "ada@example.com",
        totalAmount: 4900,
        currency: "eur",
        productId: "prod_uuid",
        metadata: { source: "landing", seats: 3, gift: false }
      }))
      expect({ ...Option.getOrThrow(yield* fulfil(event)) }).toEqual({
        orderKey: "polar:ord_9",
        email: "ada@example.com",
        product: "prod_uuid",
        amount: 4900,
        currency: "eur",
        metadata: { source: "landing", seats: "3", gift: "false" }
      })
      expect(Option.getOrThrow(yield* fulfil(eventOf(orderEvent({ orderId: "ord_n", productId: null })))).product).toBeNull()
    }))

  it.effect("an order.paid whose order is no longer paid is None; so are order.created, order.updated, refunds and unknown types", () =>
    Effect.gen(function*() {
      for (const status of ["pending", "refunded", "partially_refunded"] as const) {
        expect(yield* fulfil(eventOf(orderEvent({ orderId: "ord_s", status })))).toEqual(Option.none())
      }
      for (const type of ["order.created", "order.updated", "order.refunded", "refund.created", "subscription.active", "checkout.updated", "brand.new"]) {
        expect(yield* fulfil(eventOf(type.startsWith("order.") ? orderEvent({ orderId: "ord_o" }, type) : polarEvent(type)))).toEqual(Option.none())
      }
    }))

  it.effect("a paid order that does not decode is MalformedPayload naming the field and the order id", () =>
    Effect.gen(function*() {
      const broken = JSON.parse(orderEvent({ orderId: "ord_b" }))
      broken.data.total_amount = "29.00"
      const error = yield* failureOf(fulfil(eventOf(JSON.stringify(broken))))
      expect(error).toMatchObject({ _tag: "MalformedPayload", provider: "polar", objectId: "ord_b" })
      expect(error.detail).toContain("total_amount")
    }))
})
