import { VerifiedEvent } from "@hookgate/core/providers"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { CUSTOMER_ID_KEY, CustomerUnavailable, makeFulfilment, orderKeyOf } from "../src/Paddle.js"
import { paddleEvent, transactionEvent } from "../src/testing/index.js"
import { failureOf } from "./support.js"

// The mapping alone, with the customer lookup as a recorded function (the HTTP side is pipeline.test.ts's).
const CUSTOMER = "ctm_01h8bkrfe7w1vwf8xmytwn51ek"
const lookups: Array<string> = []
const fulfil = makeFulfilment((customerId) => {
  lookups.push(customerId)
  return customerId === CUSTOMER ? Effect.succeed("ada@example.com") : Effect.fail(new CustomerUnavailable({ detail: `no ${customerId}` }))
})
const eventOf = (json: string) => {
  const payload = JSON.parse(json) as { event_id: string; event_type: string }
  return new VerifiedEvent({ provider: "paddle", id: payload.event_id, type: payload.event_type, payload })
}

describe("paddle: events to fulfilments", () => {
  it.effect("a completed transaction becomes paddle:<txn id>: grand_total in minor units, the first item's product, custom_data as strings", () =>
    Effect.gen(function*() {
      const event = eventOf(transactionEvent("evt_1", "transaction.completed", {
        id: "txn_1",
        customerId: CUSTOMER,
        grandTotal: "123456",
        currency: "EUR",
        productId: "pro_course",
        customData: { user: "u_1", seats: 3, gone: null }
      }))
      expect({ ...Option.getOrThrow(yield* fulfil(event)) }).toEqual({
        orderKey: "paddle:txn_1",
        email: "ada@example.com",
        product: "pro_course",
        amount: 123456,
        currency: "EUR",
        metadata: { user: "u_1", seats: "3", [CUSTOMER_ID_KEY]: CUSTOMER }
      })
      expect(orderKeyOf(event)).toBe("paddle:txn_1")
    }))

  it.effect("with the stored order of the same customer, the stored email is used and nothing is looked up", () =>
    Effect.gen(function*() {
      const event = eventOf(transactionEvent("evt_2", "transaction.paid", { id: "txn_2", customerId: CUSTOMER }))
      const first = Option.getOrThrow(yield* fulfil(event))
      const before = lookups.length
      const again = Option.getOrThrow(yield* fulfil(event, { stored: Option.some(first) }))
      expect(again).toEqual(first)
      expect(lookups.length).toBe(before)
      // A stored order made for another customer is no answer for this one.
      const other = { ...first, metadata: { [CUSTOMER_ID_KEY]: "ctm_someone_else" } } as typeof first
      expect(Option.getOrThrow(yield* fulfil(event, { stored: Option.some(other) })).email).toBe("ada@example.com")
      expect(lookups.length).toBe(before + 1)
    }))

  it.effect("unpaid statuses and other types are None without a lookup, and name no order key", () =>
    Effect.gen(function*() {
      const before = lookups.length
      for (const status of ["draft", "ready", "billed", "canceled", "past_due"] as const) {
        expect(yield* fulfil(eventOf(transactionEvent("e", "transaction.completed", { id: "t", customerId: CUSTOMER, status })))).toEqual(Option.none())
      }
      const refund = eventOf(paddleEvent("e", "adjustment.created", { id: "adj_1", action: "refund" }))
      expect(yield* fulfil(refund)).toEqual(Option.none())
      expect(orderKeyOf(refund)).toBeUndefined()
      expect(lookups.length).toBe(before)
    }))

  it.effect("a lookup that fails, or a grand_total that is not digits, is MalformedPayload naming the transaction", () =>
    Effect.gen(function*() {
      const missing = yield* failureOf(fulfil(eventOf(transactionEvent("e", "transaction.completed", { id: "txn_3", customerId: "ctm_unknown" }))))
      expect(missing).toMatchObject({ _tag: "MalformedPayload", provider: "paddle", objectId: "txn_3", detail: "no ctm_unknown" })
      const decimal = yield* failureOf(fulfil(eventOf(transactionEvent("e", "transaction.completed", { id: "txn_4", customerId: CUSTOMER, grandTotal: "29.00" }))))
      expect(decimal).toMatchObject({ _tag: "MalformedPayload", objectId: "txn_4" })
      expect(decimal.detail).toContain("grand_total")
    }))
})
