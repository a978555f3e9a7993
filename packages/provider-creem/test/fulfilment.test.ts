import { VerifiedEvent } from "@hookgate/core/providers"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { Creem } from "../src/index.js"
import { checkoutCompletedEvent, creemEvent } from "../src/testing.js"
import { failureOf } from "./support.js"

const fulfil = Creem.fulfilment
const eventOf = (json: string) => {
  const payload = JSON.parse(json) as { id: string; eventType: string }
  return new VerifiedEvent({ provider: "creem", id: payload.id, type: payload.eventType, payload })
}
const minimal = (object: Record<string, unknown>) =>
  eventOf(JSON.stringify({ id: "evt_m", eventType: "checkout.completed", object }))
const order = { id: "ord_m", amount: 500, currency: "USD" }

describe("creem: events to fulfilments", () => {
  it.effect("checkout.completed becomes creem:<order id> with the customer's email, product, amount, currency and metadata", () =>
    Effect.gen(function*() {
      const event = eventOf(
        checkoutCompletedEvent("evt_1", {
          orderId: "ord_4aDwWXjMLpes4Kj4XqNnUA",
          email: "ada@example.com",
          productId: "prod_course",
          amount: 4900,
          currency: "EUR",
          metadata: { userId: "user_123", visitCount: 42, flags: ["a"], gone: null }
        })
      )
      expect({ ...Option.getOrThrow(yield* fulfil(event)) }).toEqual({
        orderKey: "creem:ord_4aDwWXjMLpes4Kj4XqNnUA",
        email: "ada@example.com",
        product: "prod_course",
        amount: 4900,
        currency: "EUR",
        // Creem's metadata is free JSON; hookgate keeps strings, and other values as JSON text.
        metadata: { userId: "user_123", visitCount: "42", flags: "[\"a\"]" }
      })
    }))

  it.effect("the product comes from object.product, its bare id, or order.product; metadata may be absent", () =>
    Effect.gen(function*() {
      const asId = yield* fulfil(minimal({ order, customer: { email: "a@example.com" }, product: "prod_bare" }))
      expect(Option.getOrThrow(asId).product).toBe("prod_bare")
      const fromOrder = yield* fulfil(minimal({ order: { ...order, product: "prod_order" }, customer: { email: "a@example.com" } }))
      expect(Option.getOrThrow(fromOrder)).toMatchObject({ product: "prod_order", metadata: {} })
      const none = yield* fulfil(minimal({ order, customer: { email: "a@example.com" }, metadata: null }))
      expect(Option.getOrThrow(none)).toMatchObject({ product: null, metadata: {} })
    }))

  it.effect("refunds, disputes, subscription events and unknown types are None", () =>
    Effect.gen(function*() {
      for (
        const type of [
          "refund.created",
          "dispute.created",
          "subscription.active",
          "subscription.paid",
          "subscription.canceled",
          "something.creem.adds.later"
        ]
      ) {
        expect(yield* fulfil(eventOf(creemEvent("evt_o", type, { id: "sub_1" })))).toEqual(Option.none())
      }
    }))

  it.effect("fields Creem adds later are ignored", () =>
    Effect.gen(function*() {
      const event = minimal({
        order: { ...order, brand_new: { nested: true } },
        customer: { email: "a@example.com", loyalty: 3 },
        upsell: [1, 2, 3]
      })
      expect(Option.isSome(yield* fulfil(event))).toBe(true)
    }))

  it.effect("a checkout that does not decode is MalformedPayload, naming the field", () =>
    Effect.gen(function*() {
      const error = yield* failureOf(fulfil(minimal({ order: { ...order, currency: 978 }, customer: { email: "a@example.com" } })))
      expect(error).toMatchObject({ _tag: "MalformedPayload", provider: "creem" })
      expect(error.detail).toContain("currency")
    }))
})
