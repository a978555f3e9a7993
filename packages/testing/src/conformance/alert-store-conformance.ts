import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import { Alert, type AlertKind, AlertStore, type AlertStoreShape } from "@hookgate/core/alerts"

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
    const LEASE = 300_000
    // A sweep's claim at `now`: the default cap, claimed for a lease, unrecorded alerts due a lease after they were stored.
    const claim = (store: AlertStoreShape, now: number, options: { limit?: number; maxAttempts?: number } = {}) =>
      store.claimDue(now, { limit: options.limit ?? 10, until: now + LEASE, maxAttempts: options.maxAttempts ?? 8, staleBefore: now - LEASE })

    test("alerts are saved once and their delivery outcome is recorded", Effect.gen(function*() {
      const store = yield* AlertStore
      expect(yield* store.save(alert("x"))).toBe(true)
      expect(yield* store.save(alert("x"))).toBe(false)
      expect((yield* store.list({ limit: 10 }))[0]).toMatchObject({ attempts: 0, nextAttemptAt: null })
      yield* store.recordAttempt("x", { at: T0 + 1, error: "channel down", attempts: 1, nextAttemptAt: T0 + 60_000 })
      expect((yield* store.list({ limit: 10 }))[0]).toMatchObject({
        deliveredAt: null,
        deliveryError: "channel down",
        attempts: 1,
        nextAttemptAt: T0 + 60_000
      })
      yield* store.recordAttempt("x", { at: T0 + 2, error: null, attempts: 2, nextAttemptAt: null })
      expect((yield* store.list({ limit: 10 }))[0]).toMatchObject({ deliveredAt: T0 + 2, deliveryError: null, attempts: 2, nextAttemptAt: null })
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
      yield* store.recordAttempt("x", { at: T0 + 1, error: null, attempts: 1, nextAttemptAt: null })
      yield* store.recordAttempt("x", { at: T0 + 2, error: "channel down", attempts: 2, nextAttemptAt: null })
      expect((yield* store.list({ limit: 10 }))[0]).toMatchObject({ deliveredAt: T0 + 1, deliveryError: "channel down" })
    }))

    test("recording an attempt of an unknown alert stores nothing", Effect.gen(function*() {
      const store = yield* AlertStore
      yield* store.recordAttempt("missing", { at: T0, error: null, attempts: 1, nextAttemptAt: null })
      expect(yield* store.list({ limit: 10 })).toEqual([])
    }))

    test("claimDue answers the undelivered alerts whose next attempt is due, earliest first, up to the limit", Effect.gen(function*() {
      const store = yield* AlertStore
      for (const id of ["never-tried", "later", "due-b", "due-a", "delivered", "given-up"]) yield* store.save(alert(id))
      yield* store.recordAttempt("later", { at: T0, error: "down", attempts: 1, nextAttemptAt: T0 + 500 })
      yield* store.recordAttempt("due-b", { at: T0, error: "down", attempts: 2, nextAttemptAt: T0 + 100 })
      yield* store.recordAttempt("due-a", { at: T0, error: "down", attempts: 1, nextAttemptAt: T0 + 50 })
      yield* store.recordAttempt("delivered", { at: T0, error: null, attempts: 1, nextAttemptAt: null })
      yield* store.recordAttempt("given-up", { at: T0, error: "down", attempts: 8, nextAttemptAt: null })
      // At T0 + 200 "never-tried" is within its raiser's lease: not due yet.
      const first = yield* claim(store, T0 + 200, { limit: 1 })
      expect(first.map((a) => [a.id, a.attempts, a.deliveryError])).toEqual([["due-a", 1, "down"]])
      const rest = yield* claim(store, T0 + 200)
      expect(rest.map((a) => [a.id, a.attempts])).toEqual([["due-b", 2]])
      // Claimed: not due again until `until`, so a second sweep at once finds nothing.
      expect(yield* claim(store, T0 + 200)).toEqual([])
      const stored = new Map((yield* store.list({ limit: 10 })).map((a) => [a.id, a]))
      expect(stored.get("due-a")!.nextAttemptAt).toBe(T0 + 200 + LEASE)
      expect(stored.get("later")!.nextAttemptAt).toBe(T0 + 500)
      // A lease later: the claimed ones again, "later", and "never-tried" (stored a lease ago, never recorded).
      expect((yield* claim(store, T0 + 200 + LEASE)).map((a) => a.id).sort()).toEqual(["due-a", "due-b", "later", "never-tried"])
    }))

    test("an alert is due from the moment it is stored until its delivery is recorded", Effect.gen(function*() {
      const store = yield* AlertStore
      yield* store.save(alert("x"))
      // Its raiser is attempting it: a sweep at once leaves it to that attempt...
      expect(yield* claim(store, T0)).toEqual([])
      expect(yield* claim(store, T0 + LEASE - 1)).toEqual([])
      // ...but that attempt never recorded an outcome (the process died, the store failed): the sweep takes it.
      const claimed = yield* claim(store, T0 + LEASE)
      expect(claimed.map((a) => [a.id, a.attempts, a.deliveredAt])).toEqual([["x", 0, null]])
      expect(claimed[0]!.nextAttemptAt).toBe(T0 + 2 * LEASE)
      expect(yield* claim(store, T0 + LEASE)).toEqual([])
      // Claimed and again unrecorded: due when the claim's lease ends, and again after that.
      expect((yield* claim(store, T0 + 2 * LEASE)).map((a) => a.id)).toEqual(["x"])
      expect((yield* claim(store, T0 + 3 * LEASE)).map((a) => a.id)).toEqual(["x"])
      // Its delivery recorded: never due again.
      yield* store.recordAttempt("x", { at: T0 + 3 * LEASE, error: null, attempts: 1, nextAttemptAt: null })
      expect(yield* claim(store, T0 + 100 * LEASE)).toEqual([])
    }))

    test("a failed attempt recorded with no next attempt and no count (an older release's shape) is still due", Effect.gen(function*() {
      const store = yield* AlertStore
      yield* store.save(alert("old"))
      yield* store.recordAttempt("old", { at: T0 + 1, error: "channel down", attempts: 0, nextAttemptAt: null })
      expect((yield* claim(store, T0 + LEASE)).map((a) => [a.id, a.attempts, a.deliveryError])).toEqual([["old", 0, "channel down"]])
    }))

    test("an alert with as many attempts as the cap is left for the operator; a higher cap makes it due again", Effect.gen(function*() {
      const store = yield* AlertStore
      yield* store.save(alert("given-up"))
      yield* store.recordAttempt("given-up", { at: T0, error: "down", attempts: 3, nextAttemptAt: null })
      expect(yield* claim(store, T0 + 100 * LEASE, { maxAttempts: 3 })).toEqual([])
      expect((yield* claim(store, T0 + 100 * LEASE, { maxAttempts: 4 })).map((a) => a.id)).toEqual(["given-up"])
    }))

    test("two claims of the same due alerts at once: each alert is claimed by one", Effect.gen(function*() {
      const store = yield* AlertStore
      for (let i = 0; i < 20; i++) {
        yield* store.save(alert(`a${i}`))
        // Half with a failed attempt due, half never recorded.
        if (i % 2 === 0) yield* store.recordAttempt(`a${i}`, { at: T0, error: "down", attempts: 1, nextAttemptAt: T0 + i })
      }
      const [one, two] = yield* Effect.all([
        claim(store, T0 + LEASE, { limit: 15 }),
        claim(store, T0 + LEASE, { limit: 15 })
      ], { concurrency: 2 })
      const ids = [...one, ...two].map((a) => a.id)
      expect(ids).toHaveLength(20)
      expect(new Set(ids).size).toBe(20)
    }))

    test("alerts list newest first (ties by id), up to the limit", Effect.gen(function*() {
      const store = yield* AlertStore
      yield* store.save(alert("old", T0))
      yield* store.save(alert("new-b", T0 + 10))
      yield* store.save(alert("new-a", T0 + 10))
      expect((yield* store.list({ limit: 10 })).map((a) => a.id)).toEqual(["new-a", "new-b", "old"])
      expect((yield* store.list({ limit: 2 })).map((a) => a.id)).toEqual(["new-a", "new-b"])
    }))
    test("resolve marks an open alert resolved with its note, once; list selects open, resolved, or an order's", Effect.gen(function*() {
      const store = yield* AlertStore
      yield* store.save(alert("x", T0))
      yield* store.save(new Alert({ ...alert("y", T0 + 1), orderKey: "test:other" }))
      expect(yield* store.resolve("x", { at: T0 + 5, note: "handled by hand" })).toBe(true)
      expect(yield* store.resolve("x", { at: T0 + 6, note: "again" })).toBe(false)
      expect(yield* store.resolve("missing", { at: T0 + 6, note: "n" })).toBe(false)
      expect((yield* store.list({ limit: 10, state: "resolved" })).map((a) => [a.id, a.resolvedAt, a.resolutionNote]))
        .toEqual([["x", T0 + 5, "handled by hand"]])
      expect((yield* store.list({ limit: 10, state: "open" })).map((a) => [a.id, a.resolvedAt])).toEqual([["y", null]])
      expect((yield* store.list({ limit: 10, orderKey: "test:other" })).map((a) => a.id)).toEqual(["y"])
      expect((yield* store.list({ limit: 10 })).map((a) => a.id)).toEqual(["y", "x"])
    }))
  })
