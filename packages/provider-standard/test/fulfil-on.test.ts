import { fulfilOn, VerifiedEvent } from "@hookgate/core/providers"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option, Schema } from "effect"
import { failureOf, orderPaid, polarFulfilment } from "./support.js"

const eventOf = (json: string, provider = "polar") => {
  const payload = JSON.parse(json) as { type: string }
  return new VerifiedEvent({ provider, id: "msg_1", type: payload.type, payload })
}

describe("standard webhooks: fulfilOn, the user's mapping", () => {
  it.effect("a paying type becomes <provider>:<orderId> with the mapped fields", () =>
    Effect.gen(function*() {
      const fulfilment = Option.getOrThrow(yield* polarFulfilment(eventOf(orderPaid("ord_9", { email: " ada@example.com " }))))
      expect({ ...fulfilment }).toEqual({
        orderKey: "polar:ord_9",
        email: "ada@example.com",
        product: "prod_ebook",
        amount: 2900,
        currency: "usd",
        metadata: { source: "landing" }
      })
      // The key follows the provider's mounted name, so two accounts never share keys.
      expect(Option.getOrThrow(yield* polarFulfilment(eventOf(orderPaid("ord_9"), "polar-eu"))).orderKey).toBe("polar-eu:ord_9")
    }))

  it.effect("a mapping that answers null is None (a status that does not pay yet)", () =>
    Effect.gen(function*() {
      expect(yield* polarFulfilment(eventOf(orderPaid("ord_p", { status: "pending" })))).toEqual(Option.none())
    }))

  it.effect("other types are None without their payload being read", () =>
    Effect.gen(function*() {
      for (const type of ["order.created", "subscription.active", "checkout.updated"]) {
        expect(yield* polarFulfilment(new VerifiedEvent({ provider: "polar", id: "m", type, payload: null }))).toEqual(Option.none())
      }
    }))

  it.effect("a paying type that does not decode, or maps to an empty order id, is MalformedPayload", () =>
    Effect.gen(function*() {
      const error = yield* failureOf(polarFulfilment(eventOf(`{"type":"order.paid","data":{"id":7}}`)))
      expect(error).toMatchObject({ _tag: "MalformedPayload", provider: "polar" })
      expect(error.detail).toContain("order.paid")
      const emptyId = fulfilOn({
        types: ["sale"],
        schema: Schema.Struct({ ref: Schema.String }),
        fulfilment: ({ ref }) => ({ orderId: ref, email: "a@example.com", amount: 1, currency: "eur" })
      })
      expect(yield* failureOf(emptyId(eventOf(`{"type":"sale","ref":"  "}`)))).toMatchObject({
        _tag: "MalformedPayload",
        detail: "fulfilment: the order id is empty"
      })
    }))
})
