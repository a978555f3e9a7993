import { OrderStore } from "@hookgate/core"
import { ScriptedMailer } from "@hookgate/testing"
import { describeEachHmac } from "@hookgate/testing/conformance"
import { expect } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { signStandardRequest } from "../src/testing.js"
import { atNow, makeProvider, orderPaid, pipeline, receivePolar, SECRET } from "./support.js"

const mailer = Effect.flatMap(ScriptedMailer, (m) => Effect.all({ calls: m.calls, delivered: m.delivered }))
const receipts = Effect.flatMap(OrderStore, (store) => store.receipts({ limit: 20 }))
const noKeys = { honoursIdempotencyKeys: false }

describeEachHmac("standard webhooks: through the core pipeline", (it) => {
  it.effect("order.paid sends one email; the sender's retries of the message (same id, new timestamp) send nothing", () =>
    Effect.gen(function*() {
      yield* atNow
      const deliver = Effect.flatMap(signStandardRequest(SECRET, orderPaid("ord_1"), { id: "msg_1" }), receivePolar)
      expect(yield* deliver).toMatchObject({ _tag: "Sent", orderKey: "polar:ord_1" })
      // Svix-style retries re-sign the same message at delivery time.
      for (const wait of ["5 seconds", "5 minutes", "30 minutes", "2 hours"] as const) {
        yield* TestClock.adjust(wait)
        expect((yield* deliver)._tag).toBe("Duplicate")
      }
      expect((yield* mailer).calls).toHaveLength(1)
      expect((yield* receipts).map((r) => [r.eventId, r.outcome, r.deliveries])).toEqual([["msg_1", "duplicate", 4]])
    }).pipe(Effect.provide(pipeline(makeProvider(), { mailer: noKeys }))))

  it.effect("svix-* headers go through the same way", () =>
    Effect.gen(function*() {
      yield* atNow
      const request = yield* signStandardRequest(SECRET, orderPaid("ord_s"), { headers: "svix" })
      expect(request.header("webhook-signature")).toBeUndefined()
      expect(yield* receivePolar(request)).toMatchObject({ _tag: "Sent", orderKey: "polar:ord_s" })
    }).pipe(Effect.provide(pipeline(makeProvider()))))

  it.effect("other types, and a paying type that does not pay yet, answer ignored and leave receipts", () =>
    Effect.gen(function*() {
      yield* atNow
      const created = yield* receivePolar(yield* signStandardRequest(SECRET, `{"type":"order.created","data":{}}`, { id: "msg_a" }))
      expect(created).toMatchObject({ _tag: "Ignored", eventType: "order.created" })
      const pending = yield* receivePolar(
        yield* signStandardRequest(SECRET, orderPaid("ord_p", { status: "pending" }), { id: "msg_b" })
      )
      expect(pending._tag).toBe("Ignored")
      expect((yield* receipts).map((r) => [r.eventId, r.outcome])).toEqual([["msg_a", "ignored"], ["msg_b", "ignored"]])
      expect((yield* mailer).calls).toHaveLength(0)
    }).pipe(Effect.provide(pipeline(makeProvider()))))

  it.effect("a provider whose payloads name their type elsewhere supplies eventType", () =>
    Effect.gen(function*() {
      yield* atNow
      // No `type` field (undefined is dropped by JSON.stringify): the type is under `event`.
      const body = JSON.stringify({ event: "order.paid", ...JSON.parse(orderPaid("ord_e")), type: undefined })
      expect(yield* receivePolar(yield* signStandardRequest(SECRET, body))).toMatchObject({ _tag: "Sent", orderKey: "polar:ord_e" })
    }).pipe(
      Effect.provide(
        pipeline(
          makeProvider(undefined, { eventType: (payload) => (payload as { event?: string }).event })
        )
      )
    ))
})
