import { describe, expect, it } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import { Alert, type AlertKind } from "../alerts/alert.js"
import { AlertStore } from "../alerts/alert-store.js"

/**
 * The alert ledger's contract (in-memory, SQLite, D1, Postgres): alerts are
 * stored once per id, an attempt's outcome is recorded on the stored alert,
 * and they list newest first. Each test gets a fresh store from `makeLayer`.
 */
export const alertStoreConformance = (name: string, makeLayer: () => Layer.Layer<AlertStore, unknown>) =>
  describe(`alert store conformance: ${name}`, () => {
    const test = (title: string, body: Effect.Effect<void, unknown, AlertStore>) =>
      it.effect(title, () => Effect.provide(body, makeLayer()))
    const T0 = 1_700_000_000_000
    const alert = (id: string, createdAt = T0, kind: AlertKind = "failed") =>
      new Alert({ id, kind, orderKey: "test:a", message: "m", createdAt, deliveredAt: null, deliveryError: null })

    test("alerts are saved once and their delivery outcome is recorded", Effect.gen(function*() {
      const store = yield* AlertStore
      expect(yield* store.save(alert("x"))).toBe(true)
      expect(yield* store.save(alert("x"))).toBe(false)
      yield* store.recordAttempt("x", { at: T0 + 1, error: "channel down" })
      expect((yield* store.list({ limit: 10 }))[0]).toMatchObject({ deliveredAt: null, deliveryError: "channel down" })
      yield* store.recordAttempt("x", { at: T0 + 2, error: null })
      expect((yield* store.list({ limit: 10 }))[0]).toMatchObject({ deliveredAt: T0 + 2, deliveryError: null })
      expect(yield* store.list({ limit: 10 })).toHaveLength(1)
    }))

    test("a second save of one id keeps the first alert as stored", Effect.gen(function*() {
      const store = yield* AlertStore
      yield* store.save(alert("x", T0, "capped"))
      yield* store.save(new Alert({ ...alert("x", T0 + 5, "failed"), message: "other" }))
      expect(yield* store.list({ limit: 10 })).toEqual([alert("x", T0, "capped")])
    }))

    test("a failed attempt after a delivery keeps the delivery time", Effect.gen(function*() {
      const store = yield* AlertStore
      yield* store.save(alert("x"))
      yield* store.recordAttempt("x", { at: T0 + 1, error: null })
      yield* store.recordAttempt("x", { at: T0 + 2, error: "channel down" })
      expect((yield* store.list({ limit: 10 }))[0]).toMatchObject({ deliveredAt: T0 + 1, deliveryError: "channel down" })
    }))

    test("recording an attempt of an unknown alert stores nothing", Effect.gen(function*() {
      const store = yield* AlertStore
      yield* store.recordAttempt("missing", { at: T0, error: null })
      expect(yield* store.list({ limit: 10 })).toEqual([])
    }))

    test("alerts list newest first (ties by id), up to the limit", Effect.gen(function*() {
      const store = yield* AlertStore
      yield* store.save(alert("old", T0))
      yield* store.save(alert("new-b", T0 + 10))
      yield* store.save(alert("new-a", T0 + 10))
      expect((yield* store.list({ limit: 10 })).map((a) => a.id)).toEqual(["new-a", "new-b", "old"])
      expect((yield* store.list({ limit: 2 })).map((a) => a.id)).toEqual(["new-a", "new-b"])
    }))
  })
