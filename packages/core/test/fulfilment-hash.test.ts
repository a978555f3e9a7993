import { describe, expect, it } from "@effect/vitest"
import { Fulfilment } from "@hookgate/core"
import { fulfilmentHash } from "../src/orders/fulfilment.js"
import { Effect } from "effect"

const base = { orderKey: "stripe:cs_1", email: "Buyer@Example.com", product: "pro", amount: 4900, currency: "EUR", metadata: {} }

describe("fulfilmentHash", () => {
  it.effect("ignores the case of email and currency, and the metadata", () =>
    Effect.gen(function*() {
      const a = yield* fulfilmentHash(new Fulfilment(base))
      const b = yield* fulfilmentHash(new Fulfilment({ ...base, email: "buyer@example.com", currency: " eur ", metadata: { source: "async" } }))
      expect(a).toBe(b)
    }))

  it.effect("changes with the email, the product, the amount or the currency", () =>
    Effect.gen(function*() {
      const hash = (changes: Partial<typeof base>) => fulfilmentHash(new Fulfilment({ ...base, ...changes }))
      const original = yield* hash({})
      for (const changes of [{ email: "other@example.com" }, { product: "basic" }, { amount: 4901 }, { currency: "usd" }]) {
        expect(yield* hash(changes)).not.toBe(original)
      }
    }))
})
