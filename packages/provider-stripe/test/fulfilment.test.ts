import { VerifiedEvent } from "@hookgate/core/providers"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { Stripe } from "../src/index.js"
import { checkoutSessionEvent } from "../src/testing.js"
import { failureOf } from "./support.js"

const fulfil = Stripe.fulfilment
const eventOf = (json: string) => {
  const payload = JSON.parse(json) as { id: string; type: string }
  return new VerifiedEvent({ provider: "stripe", id: payload.id, type: payload.type, payload })
}
const sessionWith = (fields: Record<string, unknown>) =>
  eventOf(
    JSON.stringify({
      id: "evt_f",
      type: "checkout.session.completed",
      data: { object: { id: "cs_f", payment_status: "paid", amount_total: 2500, currency: "eur", ...fields } }
    })
  )

describe("stripe: events to fulfilments", () => {
  it.effect("a paid completed session becomes stripe:<session id> with its email, product, amount and metadata", () =>
    Effect.gen(function*() {
      const event = eventOf(
        checkoutSessionEvent("evt_1", "checkout.session.completed", {
          id: "cs_test_a1",
          email: "ada@example.com",
          amountTotal: 4900,
          currency: "eur",
          metadata: { product_id: "course-101", plan: "pro" }
        })
      )
      const fulfilment = Option.getOrThrow(yield* fulfil(event))
      expect({ ...fulfilment }).toEqual({
        orderKey: "stripe:cs_test_a1",
        email: "ada@example.com",
        product: "course-101",
        amount: 4900,
        currency: "eur",
        metadata: { product_id: "course-101", plan: "pro" }
      })
    }))

  it.effect("without metadata.product_id the product is null and metadata is empty", () =>
    Effect.gen(function*() {
      const fulfilment = Option.getOrThrow(yield* fulfil(sessionWith({ customer_details: { email: "a@example.com" } })))
      expect(fulfilment.product).toBeNull()
      expect(fulfilment.metadata).toEqual({})
      const nullMetadata = Option.getOrThrow(
        yield* fulfil(sessionWith({ customer_details: { email: "a@example.com" }, metadata: null }))
      )
      expect(nullMetadata.metadata).toEqual({})
    }))

  it.effect("a free session (no_payment_required) is fulfilled with amount 0", () =>
    Effect.gen(function*() {
      const event = eventOf(
        checkoutSessionEvent("evt_2", "checkout.session.completed", { id: "cs_free", paymentStatus: "no_payment_required", amountTotal: 0 })
      )
      expect(Option.getOrThrow(yield* fulfil(event))).toMatchObject({ orderKey: "stripe:cs_free", amount: 0 })
    }))

  it.effect("an unpaid completed session is None, even when the fields a fulfilment needs are missing", () =>
    Effect.gen(function*() {
      const unpaid = eventOf(checkoutSessionEvent("evt_3", "checkout.session.completed", { id: "cs_u", paymentStatus: "unpaid" }))
      expect(yield* fulfil(unpaid)).toEqual(Option.none())
      const bare = eventOf(
        JSON.stringify({ id: "evt_4", type: "checkout.session.completed", data: { object: { payment_status: "unpaid" } } })
      )
      expect(yield* fulfil(bare)).toEqual(Option.none())
    }))

  it.effect("async_payment_succeeded is fulfilled; async_payment_failed, expired and other types are None", () =>
    Effect.gen(function*() {
      const succeeded = eventOf(checkoutSessionEvent("evt_5", "checkout.session.async_payment_succeeded", { id: "cs_a" }))
      expect(Option.getOrThrow(yield* fulfil(succeeded)).orderKey).toBe("stripe:cs_a")
      for (const type of ["checkout.session.async_payment_failed", "checkout.session.expired"] as const) {
        expect(yield* fulfil(eventOf(checkoutSessionEvent("evt_6", type, { id: "cs_a" })))).toEqual(Option.none())
      }
      for (const type of ["invoice.paid", "payment_intent.succeeded", "charge.refunded", "v2.something.new"]) {
        // Unknown types are None without any look at their shape.
        expect(yield* fulfil(new VerifiedEvent({ provider: "stripe", id: "evt_7", type, payload: 42 }))).toEqual(Option.none())
      }
    }))

  it.effect("customer_email stands in when customer_details has no email; blanks around an email are trimmed", () =>
    Effect.gen(function*() {
      const fallback = yield* fulfil(sessionWith({ customer_details: { email: null }, customer_email: "known@example.com" }))
      expect(Option.getOrThrow(fallback).email).toBe("known@example.com")
      const padded = yield* fulfil(sessionWith({ customer_details: { email: "  pad@example.com \n" } }))
      expect(Option.getOrThrow(padded).email).toBe("pad@example.com")
    }))

  it.effect("fields Stripe adds later are ignored", () =>
    Effect.gen(function*() {
      const event = sessionWith({
        customer_details: { email: "a@example.com", tax_exempt: "none", brand_new: { nested: [1, 2] } },
        adaptive_pricing: { enabled: true },
        some_future_field: "x"
      })
      expect(Option.isSome(yield* fulfil(event))).toBe(true)
    }))

  it.effect("a paying session that does not decode is MalformedPayload, naming the field", () =>
    Effect.gen(function*() {
      const error = yield* failureOf(fulfil(sessionWith({ customer_details: { email: "a@example.com" }, currency: 978 })))
      expect(error).toMatchObject({ _tag: "MalformedPayload", provider: "stripe" })
      expect(error.detail).toContain("currency")
      const badMetadata = yield* failureOf(
        fulfil(sessionWith({ customer_details: { email: "a@example.com" }, metadata: { product_id: 7 } }))
      )
      expect(badMetadata.detail).toContain("metadata")
    }))
})
