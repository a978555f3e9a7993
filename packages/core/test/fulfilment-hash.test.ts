import { describe, expect, it } from "@effect/vitest"
import { Fulfilment } from "@hookgate/core"
import { describeEachHmac } from "@hookgate/testing/conformance"
import { fulfilmentHash } from "../src/kernel/fulfilment.js"
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

// Stored with every order: an upgrade, or a gateway on another runtime, must compute the same value.
describeEachHmac("fulfilmentHash, the value stored", (it) => {
  it.effect("is the SHA-256 of the normalised fields, the same on every implementation", () =>
    Effect.gen(function*() {
      expect(yield* fulfilmentHash(new Fulfilment(base))).toBe(
        "sha256:c840663cfab6e74fc9a1c1df8d75543d2ecc2125ea07f48de3c6aea465490506"
      )
      expect(yield* fulfilmentHash(new Fulfilment({ ...base, email: "ünï@exämple.com", product: null }))).toBe(
        "sha256:efac0696029bfa401564f9d4b913d4e6fb6cf8813c7333cb23a84db448cea02c"
      )
    }))
})
