import { OrderStore } from "@hookgate/core"
import { ScriptedMailer } from "@hookgate/testing"
import { describeEachHmac } from "@hookgate/testing/conformance"
import { expect } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { orderEvent, polarEvent, signPolarRequest } from "../src/testing.js"
import { atNow, makeProvider, pipeline, receivePolar, SECRET } from "./support.js"

const mailer = Effect.flatMap(ScriptedMailer, (m) => Effect.all({ calls: m.calls, delivered: m.delivered }))
const receipts = Effect.flatMap(OrderStore, (store) => store.receipts({ limit: 20 }))

describeEachHmac("polar: through the core pipeline", (it) => {
  it.effect("order.paid sends one email; Polar's retries of the message (same webhook-id, re-signed later) send nothing", () =>
    Effect.gen(function*() {
      yield* atNow
      const deliver = Effect.flatMap(signPolarRequest(SECRET, orderEvent({ orderId: "ord_1", email: "ada@example.com" }), { id: "msg_1" }), receivePolar)
      expect(yield* deliver).toMatchObject({ _tag: "Sent", orderKey: "polar:ord_1" })
      for (const wait of ["5 seconds", "5 minutes", "30 minutes", "2 hours"] as const) {
        yield* TestClock.adjust(wait)
        expect((yield* deliver)._tag).toBe("Duplicate")
      }
      const { calls, delivered } = yield* mailer
      expect(calls).toHaveLength(1)
      expect(delivered.map((d) => d.email.to)).toEqual(["ada@example.com"])
      expect((yield* receipts).map((r) => [r.eventId, r.outcome, r.deliveries])).toEqual([["msg_1", "duplicate", 4]])
    }).pipe(Effect.provide(pipeline(makeProvider(), { mailer: { honoursIdempotencyKeys: false } }))))

  it.effect("order.created (pending), order.updated, the refund and other events answer ignored, keep receipts and send nothing", () =>
    Effect.gen(function*() {
      yield* atNow
      const bodies = [
        orderEvent({ orderId: "ord_2", status: "pending" }, "order.created"),
        orderEvent({ orderId: "ord_2", status: "pending" }),
        orderEvent({ orderId: "ord_2", status: "refunded" }, "order.refunded"),
        polarEvent("refund.created", { id: "ref_1", order_id: "ord_2" }),
        polarEvent("subscription.active")
      ]
      for (const [i, body] of bodies.entries()) {
        expect((yield* receivePolar(yield* signPolarRequest(SECRET, body, { id: `msg_${i}` })))._tag).toBe("Ignored")
      }
      expect((yield* receipts).map((r) => r.outcome)).toEqual(bodies.map(() => "ignored"))
      expect((yield* Effect.flatMap(OrderStore, (s) => s.stats)).orders.pending).toBe(0)
      expect((yield* mailer).calls).toHaveLength(0)
    }).pipe(Effect.provide(pipeline(makeProvider()))))
})
