import { describe, expect, it } from "@effect/vitest"
import { decodeOrder } from "../src/rows.js"

// Rows the store wrote are read with plain checks; anything else still meets the codec.

const row = {
  order_key: "test:o1", provider: "test", event_id: "evt_o1", event_type: "order.paid", email: "o1@example.com",
  product: null, amount: 1900, currency: "usd", metadata: "{\"plan\":\"pro\"}", payload_hash: "sha256:ab",
  status: "pending", attempts: 2, next_attempt_at: 10, last_error: "boom", lease_token: null, lease_expires_at: null,
  uncertain: 1, message_id: null, sent_at: null, duplicates_prevented: 0, possible_duplicates: 0, leases_lost: 0,
  created_at: 1, updated_at: 5
}

describe("decodeOrder", () => {
  it("reads a row as the core's Order, numbers given as numbers or (Postgres BIGINT) as numeric strings", () => {
    const order = decodeOrder(row)
    expect(order.fulfilment.metadata).toEqual({ plan: "pro" })
    expect([order.attempts, order.nextAttemptAt, order.uncertain, order.leaseExpiresAt]).toEqual([2, 10, true, null])
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
