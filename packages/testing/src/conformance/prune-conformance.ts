import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { EventReceipt, Lease, OrderStore, type PruneCounts } from "@hookgate/core"
import { Alert, AlertStore } from "@hookgate/core/alerts"
import { SendReceipt } from "@hookgate/core/mail"
import { newOrder } from "../fixtures.js"

/**
 * `OrderStore.prune` and `prunable`, for every store: what goes (finished orders older than
 * the cutoff, their receipts and resolved alerts, receipts and resolved alerts about no
 * order) and what stays (anything an open order needs, open alerts, newer rows), in bounded
 * batches whose sum is what `prunable` counted.
 */
export const pruneConformance = (name: string, makeLayer: () => Layer.Layer<OrderStore | Lease | AlertStore, unknown>) =>
  describe(`prune conformance: ${name}`, () => {
    const test = (title: string, body: Effect.Effect<void, unknown, OrderStore | Lease | AlertStore>, timeout?: number) =>
      it.effect(title, () => Effect.provide(body, makeLayer()), timeout)
    const T0 = 1_700_000_000_000
    const DAY = 86_400_000
    const CUTOFF = T0 + 180 * DAY
    const LATER = CUTOFF + DAY
    const BULK = 95 // more order keys than one SQL statement binds (`PRUNE_KEYS_PER_CALL`, 90)

    const put = (id: string, now: number) =>
      Effect.gen(function*() {
        const store = yield* OrderStore
        const token = crypto.randomUUID()
        const result = yield* store.put(yield* newOrder(id), { token, now, until: now + 60_000 })
        if (result._tag !== "Stored") return yield* Effect.dieMessage(`expected Stored, got ${result._tag}`)
        yield* store.recordReceipt(new EventReceipt({ provider: "test", eventId: `evt_${id}`, eventType: "paid", orderKey: `test:${id}`, outcome: "duplicate", receivedAt: now }))
        return token
      })
    const sent = (id: string, now: number) =>
      Effect.gen(function*() {
        const token = yield* put(id, now)
        const receipt = new SendReceipt({ mailer: "m", messageId: `msg_${id}`, acceptedAt: now })
        const attempt = { number: 1, startedAt: now, outcome: "sent", errorClass: null, detail: `msg_${id}` } as const
        yield* Effect.flatMap(Lease, (lease) => lease.complete(`test:${id}`, token, receipt, { mailerHonoursKeys: true, now, attempt }))
      })
    const ended = (id: string, now: number, status: "capped" | "failed" | "pending") =>
      Effect.gen(function*() {
        const token = yield* put(id, now)
        yield* Effect.flatMap(Lease, (lease) =>
          lease.release(`test:${id}`, token, {
            now,
            error: "boom",
            attempts: 1,
            status,
            nextAttemptAt: now + 60_000,
            uncertain: false,
            alert: Option.none(),
            attempt: { number: 1, startedAt: now, outcome: status === "pending" ? "retry" : status, errorClass: "Transient", detail: "boom" }
          }))
      })
    const alert = (id: string, orderKey: string | null, createdAt: number, resolvedAt: number | null) =>
      Effect.gen(function*() {
        const alerts = yield* AlertStore
        yield* alerts.save(new Alert({ id, kind: "capped", orderKey, message: "m", createdAt, deliveredAt: createdAt, deliveryError: null }))
        if (resolvedAt !== null) yield* alerts.resolve(id, { at: resolvedAt, note: "seen" })
      })
    const ignored = (id: string, at: number) =>
      Effect.flatMap(OrderStore, (store) =>
        store.recordReceipt(new EventReceipt({ provider: "test", eventId: id, eventType: "customer.updated", orderKey: null, outcome: "ignored", receivedAt: at })))
    const exists = (id: string) => Effect.flatMap(OrderStore, (store) => Effect.map(store.get(`test:${id}`), Option.isSome))
    const pruneAll = (before: number, limit: number) =>
      Effect.gen(function*() {
        const store = yield* OrderStore
        const total = { orders: 0, receipts: 0, alerts: 0, attempts: 0, calls: 0 }
        while (true) {
          const counts: PruneCounts = yield* store.prune(before, { limit })
          total.calls++
          if (counts.orders + counts.receipts + counts.alerts + counts.attempts === 0) return total
          expect(counts.orders).toBeLessThanOrEqual(limit)
          total.orders += counts.orders
          total.receipts += counts.receipts
          total.alerts += counts.alerts
          total.attempts += counts.attempts
        }
      })

    test("finished orders before the cutoff go with their receipts and resolved alerts; what an open order needs stays", Effect.gen(function*() {
      const store = yield* OrderStore
      yield* sent("old-sent", T0)
      yield* ended("old-failed", T0, "failed")
      yield* ended("old-capped-resolved", T0, "capped")
      yield* alert("a-resolved", "test:old-capped-resolved", T0, T0 + DAY)
      yield* ended("old-capped-open", T0, "capped")
      yield* alert("a-open", "test:old-capped-open", T0, null)
      yield* ended("old-pending", T0, "pending") // due, retried by the sweep
      yield* put("old-leased", T0) // leased, never released
      yield* sent("new-sent", LATER)
      yield* ignored("evt_old_ignored", T0)
      yield* ignored("evt_new_ignored", LATER)
      yield* alert("a-alone-resolved", null, T0, T0 + 1)
      yield* alert("a-alone-open", null, T0, null)
      yield* alert("a-alone-new", null, LATER, LATER)

      // Each of the three pruned orders had one attempt: its history goes with it.
      const expected = { orders: 3, receipts: 4, alerts: 2, attempts: 3 }
      expect(yield* store.prunable(CUTOFF)).toEqual(expected)
      const total = yield* pruneAll(CUTOFF, 2)
      expect({ orders: total.orders, receipts: total.receipts, alerts: total.alerts, attempts: total.attempts }).toEqual(expected)
      expect(total.calls).toBeGreaterThan(2) // bounded batches, not one statement
      expect(yield* store.prunable(CUTOFF)).toEqual({ orders: 0, receipts: 0, alerts: 0, attempts: 0 })

      for (const gone of ["old-sent", "old-failed", "old-capped-resolved"]) expect(yield* exists(gone)).toBe(false)
      for (const kept of ["old-capped-open", "old-pending", "old-leased", "new-sent"]) expect(yield* exists(kept)).toBe(true)
      expect(yield* store.receipts({ orderKey: "test:old-sent", limit: 10 })).toEqual([])
      expect(yield* store.receipts({ orderKey: "test:old-capped-open", limit: 10 })).toHaveLength(1)
      expect(yield* store.attempts("test:old-sent", { limit: 10 })).toEqual([])
      expect(yield* store.attempts("test:old-capped-open", { limit: 10 })).toHaveLength(1)
      const receiptIds = (yield* store.receipts({ limit: 100 })).map((r) => r.eventId).sort()
      expect(receiptIds).toEqual(["evt_new-sent", "evt_new_ignored", "evt_old-capped-open", "evt_old-leased", "evt_old-pending"])
      const alertIds = (yield* Effect.flatMap(AlertStore, (a) => a.list({ limit: 100 }))).map((a) => a.id).sort()
      expect(alertIds).toEqual(["a-alone-new", "a-alone-open", "a-open"])
      // The kept pending order is still due for the sweep.
      expect(yield* store.due(LATER, { limit: 10, maxAttempts: 8 })).toContain("test:old-pending")
    }), 120_000) // some forty statements: slow on Miniflare's D1 under load

    test("an ignored event's receipt counts from when it was last seen", Effect.gen(function*() {
      const store = yield* OrderStore
      yield* ignored("evt_again", T0)
      yield* ignored("evt_again", LATER) // delivered again after the cutoff
      expect(yield* store.prunable(CUTOFF)).toEqual({ orders: 0, receipts: 0, alerts: 0, attempts: 0 })
      expect(yield* store.prune(CUTOFF, { limit: 10 })).toEqual({ orders: 0, receipts: 0, alerts: 0, attempts: 0 })
      expect(yield* store.receipts({ limit: 10 })).toHaveLength(1)
    }))

    test("a batch of more orders than one statement may bind is cut, and the rest goes on the next call", Effect.gen(function*() {
      const store = yield* OrderStore
      yield* Effect.forEach(Array.from({ length: BULK }, (_, i) => i), (i) => sent(`bulk-${i}`, T0 + i), { discard: true })
      expect((yield* store.prunable(CUTOFF)).orders).toBe(BULK)
      const first = yield* store.prune(CUTOFF, { limit: 500 })
      expect(first.orders).toBeGreaterThan(0)
      expect(first.orders).toBeLessThanOrEqual(BULK)
      const rest = yield* pruneAll(CUTOFF, 500)
      expect(first.orders + rest.orders).toBe(BULK)
      expect(first.receipts + rest.receipts).toBe(BULK)
      expect(first.attempts + rest.attempts).toBe(BULK)
      expect((yield* store.stats).receipts).toBe(0)
    }), 120_000) // a few hundred statements: slow on Miniflare's D1 under load
  })
