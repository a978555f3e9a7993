import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as fc from "effect/FastCheck"
import * as Schema from "effect/Schema"
import { decodeOrder, OrderRow, readTrusted } from "../src/rows.js"

// Rows the store wrote are read with plain checks; anything else still meets the codec.

const row = {
  order_key: "test:o1", provider: "test", event_id: "evt_o1", event_type: "order.paid", email: "o1@example.com",
  product: null, amount: 1900, currency: "usd", metadata: "{\"plan\":\"pro\"}", payload_hash: "sha256:ab",
  status: "pending", attempts: 2, next_attempt_at: 10, last_error: "boom", lease_token: null, lease_expires_at: null,
  uncertain: 1, uncertain_attempts: 3, message_id: null, sent_at: null, duplicates_prevented: 0, possible_duplicates: 0, leases_lost: 0,
  created_at: 1, updated_at: 5, source: "webhook"
}

describe("decodeOrder", () => {
  it("reads a row as the core's Order, numbers given as numbers or (Postgres BIGINT) as numeric strings", () => {
    const order = decodeOrder(row)
    expect(order.fulfilment.metadata).toEqual({ plan: "pro" })
    expect([order.attempts, order.nextAttemptAt, order.uncertain, order.uncertainAttempts, order.leaseExpiresAt]).toEqual([2, 10, true, 3, null])
    const fromStrings = decodeOrder({ ...row, amount: "1900", next_attempt_at: "10", uncertain: "0", lease_expires_at: "20" })
    expect([fromStrings.fulfilment.amount, fromStrings.nextAttemptAt, fromStrings.uncertain, fromStrings.leaseExpiresAt])
      .toEqual([1900, 10, false, 20])
  })

  it("reads a status it does not know (a newer release's) as unknown", () => {
    expect(decodeOrder({ ...row, status: "refunded" }).status).toBe("unknown")
  })

  it("refuses a row it could not have written, naming the field", () => {
    expect(() => decodeOrder({ ...row, status: 7 })).toThrow(/status/)
    expect(() => decodeOrder({ ...row, attempts: "two" })).toThrow(/attempts/)
    expect(() => decodeOrder({ ...row, metadata: "{\"plan\":1}" })).toThrow(/metadata/)
    expect(() => decodeOrder({ ...row, email: undefined })).toThrow(/email/)
  })
})

// The fast path against the general one: on any row, either it steps aside (undefined,
// and the codec decides) or it reads exactly what the codec reads, and it never accepts
// a row the codec refuses. Rows the stores write (valid fields, numbers as numbers or
// as Postgres's numeric strings) always take the fast path.
const valid = {
  text: fc.constantFrom("x", "", " padded ", "é", "test:o1"),
  nullableText: fc.constantFrom(null, "y", ""),
  int: fc.oneof(fc.integer({ min: -5, max: 2_000_000_000_000 }), fc.integer({ min: 0, max: 99_999 }).map(String)),
  nullableInt: fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 2_000_000_000_000 })),
  metadata: fc.constantFrom("{}", "{\"plan\":\"pro\"}", "{\"a\":\"1\",\"b\":\"\"}"),
  status: fc.constantFrom("pending", "sent", "failed", "capped"),
  source: fc.constantFrom("webhook", "reconcile")
}
const odd = fc.constantFrom<unknown>(
  undefined, null, true, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "", " 7 ", "1e3", "0x10", "abc", "Infinity", {}, [], "{\"plan\":1}",
  "[]", "null", "lost", "{"
)
const field = <A>(good: fc.Arbitrary<A>, oddRate: number) => fc.oneof({ arbitrary: good, weight: 100 - oddRate }, { arbitrary: odd, weight: oddRate })
const rowOf = (oddRate: number) =>
  fc.record({
    order_key: field(valid.text, oddRate), provider: field(valid.text, oddRate), event_id: field(valid.text, oddRate),
    event_type: field(valid.text, oddRate), email: field(valid.text, oddRate), product: field(valid.nullableText, oddRate),
    amount: field(valid.int, oddRate), currency: field(valid.text, oddRate), metadata: field(valid.metadata, oddRate),
    payload_hash: field(valid.text, oddRate), status: field(valid.status, oddRate), attempts: field(valid.int, oddRate),
    next_attempt_at: field(valid.int, oddRate), last_error: field(valid.nullableText, oddRate),
    lease_token: field(valid.nullableText, oddRate), lease_expires_at: field(valid.nullableInt, oddRate),
    uncertain: field(fc.constantFrom(0, 1, "0", "1"), oddRate), uncertain_attempts: field(valid.int, oddRate), message_id: field(valid.nullableText, oddRate),
    sent_at: field(valid.nullableInt, oddRate), duplicates_prevented: field(valid.int, oddRate),
    possible_duplicates: field(valid.int, oddRate), leases_lost: field(valid.int, oddRate),
    created_at: field(valid.int, oddRate), updated_at: field(valid.int, oddRate), source: field(valid.source, oddRate)
  })

describe("readTrusted (the fast path) against the OrderRow codec", () => {
  it("reads what the codec reads, or steps aside; never accepts what the codec refuses (property)", () => {
    fc.assert(
      fc.property(rowOf(8), (candidate) => {
        const fast = readTrusted(candidate)
        const general = Schema.decodeUnknownEither(OrderRow)(candidate)
        if (Either.isLeft(general)) expect(fast).toBeUndefined()
        else if (fast !== undefined) expect(fast).toEqual(general.right)
      }),
      { numRuns: 3_000, seed: 20261202 }
    )
  })

  it("takes every row a store writes (property)", () => {
    fc.assert(
      fc.property(rowOf(0), (candidate) => {
        expect(readTrusted(candidate)).toEqual(Schema.decodeUnknownSync(OrderRow)(candidate))
      }),
      { numRuns: 1_000, seed: 20261202 }
    )
  })
})
