import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import { AlertStore } from "@hookgate/core/alerts"
import type { Alerter } from "@hookgate/core/alerts"
import { Consumer, DeadLetterStore, Decision, type Delivery, MessageLedger, OnceResult } from "@hookgate/core/queue"
import { RecordingAlerter } from "../recording-alerter.js"
import type { LedgerServices } from "./ledger-services.js"
import { realPause } from "../fixtures.js"

/**
 * The message ledger's contract and `Consumer.once` on top of it, for every
 * store. Each test gets a fresh store from `makeLayer`.
 */
export const messageLedgerConformance = (name: string, makeLayer: () => Layer.Layer<LedgerServices, unknown>) =>
  describe(`message ledger conformance: ${name}`, () => {
    const test = (title: string, body: Effect.Effect<void, unknown, LedgerServices | RecordingAlerter | Alerter>) =>
      it.effect(title, () => Effect.provide(body, Layer.merge(makeLayer(), RecordingAlerter.layer())))
    const T0 = 1_700_000_000_000
    const LEASE = 60_000
    const acquire = (key: string, now: number) => Effect.flatMap(MessageLedger, (l) => l.acquire(key, { token: crypto.randomUUID(), now, until: now + LEASE }))
    const record = (key: string) =>
      Effect.flatMap(MessageLedger, (l) => Effect.map(l.get(key), Option.getOrThrow))

    test("the first delivery leases the key; another while the lease is fresh is InProgress and counted", Effect.gen(function*() {
      const first = yield* acquire("m1", T0)
      expect(first).toMatchObject({ _tag: "Leased", attempts: 0 })
      expect(yield* acquire("m1", T0 + 1)).toEqual({ _tag: "InProgress", until: T0 + LEASE })
      expect(yield* record("m1")).toMatchObject({ status: "pending", runs: 1, duplicates: 1, leaseExpiresAt: T0 + LEASE })
    }))

    test("prune deletes completed keys from before the cutoff, in bounded calls; pending keys stay", Effect.gen(function*() {
      const ledger = yield* MessageLedger
      for (const key of ["old-1", "old-2", "old-3"]) {
        const leased = yield* acquire(key, T0)
        if (leased._tag === "Leased") yield* ledger.complete(key, leased.token, { now: T0 + 1 })
      }
      yield* acquire("old-pending", T0) // leased, never completed
      const recent = yield* acquire("recent", T0 + 1_000)
      if (recent._tag === "Leased") yield* ledger.complete("recent", recent.token, { now: T0 + 1_000 })
      const cutoff = T0 + 500
      expect(yield* ledger.prunable(cutoff)).toBe(3)
      expect(yield* ledger.prune(cutoff, { limit: 2 })).toBe(2)
      expect(yield* ledger.prune(cutoff, { limit: 2 })).toBe(1)
      expect(yield* ledger.prune(cutoff, { limit: 2 })).toBe(0)
      expect(yield* ledger.prunable(cutoff)).toBe(0)
      expect(Option.isNone(yield* ledger.get("old-1"))).toBe(true)
      expect((yield* record("old-pending")).status).toBe("pending")
      expect((yield* record("recent")).status).toBe("completed")
    }))

    test("complete marks the key done: every later delivery answers Completed, whatever the time", Effect.gen(function*() {
      const ledger = yield* MessageLedger
      const first = yield* acquire("m1", T0)
      if (first._tag !== "Leased") return yield* Effect.dieMessage("expected a lease")
      expect(yield* ledger.complete("m1", first.token, { now: T0 + 5 })).toBe(true)
      expect(yield* acquire("m1", T0 + 10)).toEqual({ _tag: "Completed", completedAt: T0 + 5 })
      expect(yield* acquire("m1", T0 + 100 * LEASE)).toEqual({ _tag: "Completed", completedAt: T0 + 5 })
      expect(yield* record("m1")).toMatchObject({ status: "completed", leaseToken: null, runs: 1, duplicates: 2 })
    }))

    test("a stale token can neither complete nor release; the new holder can", Effect.gen(function*() {
      const ledger = yield* MessageLedger
      const first = yield* acquire("m1", T0)
      const second = yield* acquire("m1", T0 + LEASE) // the first lease expired: taken over
      if (first._tag !== "Leased" || second._tag !== "Leased") return yield* Effect.dieMessage("expected two leases")
      expect(second.token).not.toBe(first.token)
      const before = yield* record("m1")
      expect(yield* ledger.complete("m1", first.token, { now: T0 + LEASE + 1 })).toBe(false)
      expect(yield* ledger.release("m1", first.token, { now: T0 + LEASE + 1, error: "late" })).toBe(false)
      expect(yield* record("m1")).toEqual(before)
      expect(yield* ledger.complete("m1", second.token, { now: T0 + LEASE + 2 })).toBe(true)
      expect(yield* record("m1")).toMatchObject({ status: "completed", runs: 2 })
    }))

    test("release counts the failed run and frees the lease: the next delivery runs it again", Effect.gen(function*() {
      const ledger = yield* MessageLedger
      const first = yield* acquire("m1", T0)
      if (first._tag !== "Leased") return yield* Effect.dieMessage("expected a lease")
      expect(yield* ledger.release("m1", first.token, { now: T0 + 1, error: "boom" })).toBe(true)
      expect(yield* record("m1")).toMatchObject({ status: "pending", attempts: 1, lastError: "boom", leaseToken: null })
      expect(yield* acquire("m1", T0 + 2)).toMatchObject({ _tag: "Leased", attempts: 1 })
    }))

    test("once: a message redelivered after success is answered without running the effect", Effect.gen(function*() {
      const runs = yield* Ref.make(0)
      const effect = Ref.updateAndGet(runs, (n) => n + 1)
      expect(yield* Consumer.once("order-8812-charge", effect)).toEqual(OnceResult.Ran({ value: 1 }))
      const again = yield* Consumer.once("order-8812-charge", effect)
      expect(again._tag).toBe("AlreadyDone")
      expect(yield* Ref.get(runs)).toBe(1)
    }))

    test("once: 50 concurrent deliveries of one message run the effect once", Effect.gen(function*() {
      const runs = yield* Ref.make(0)
      // The effect yields to the event loop while it holds the lease, so the others really overlap it.
      const effect = Effect.zipRight(Ref.update(runs, (n) => n + 1), realPause(20))
      const results = yield* Effect.all(Array.from({ length: 50 }, () => Consumer.once("m-race", effect)), { concurrency: "unbounded" })
      expect(yield* Ref.get(runs)).toBe(1)
      expect(results.filter((r) => r._tag === "Ran")).toHaveLength(1)
      expect(results.filter((r) => r._tag === "InProgress").length + results.filter((r) => r._tag === "AlreadyDone").length).toBe(49)
      expect((yield* record("m-race")).duplicates).toBe(49)
    }))

    test("once: a failing effect releases its lease and fails; the next delivery runs it and completes", Effect.gen(function*() {
      const runs = yield* Ref.make(0)
      const flaky = Effect.flatMap(Ref.updateAndGet(runs, (n) => n + 1), (n) => n === 1 ? Effect.fail("card declined" as const) : Effect.succeed(n))
      expect(yield* Effect.flip(Consumer.once("m1", flaky))).toBe("card declined")
      expect(yield* record("m1")).toMatchObject({ status: "pending", attempts: 1, leaseToken: null })
      expect(yield* Consumer.once("m1", flaky)).toEqual(OnceResult.Ran({ value: 2 }))
      expect((yield* Consumer.once("m1", flaky))._tag).toBe("AlreadyDone")
      expect(yield* Ref.get(runs)).toBe(2)
    }))

    test("once: an effect that outlives its timeout is interrupted and released, then retried", Effect.gen(function*() {
      const fiber = yield* Effect.fork(Consumer.once("m1", Effect.never, { leaseFor: "10 seconds", timeout: "5 seconds" }))
      // The lease is taken with real I/O (D1, SQLite) before the timeout starts: move the
      // clock until the timeout has fired, rather than once, which could come too early.
      for (let i = 0; i < 400 && Option.isNone(yield* Fiber.poll(fiber)); i++) {
        yield* TestClock.adjust("1 second")
        yield* realPause(5)
      }
      const error = yield* Effect.flip(Fiber.join(fiber))
      expect(error).toMatchObject({ _tag: "OnceTimeout", messageKey: "m1" })
      expect(yield* record("m1")).toMatchObject({ status: "pending", attempts: 1, leaseToken: null })
      expect(yield* Consumer.once("m1", Effect.succeed("done"))).toEqual(OnceResult.Ran({ value: "done" }))
    }))

    test("onceHandler: ack after completion, retry no later than the lease while in progress, dead-letter an unreadable body", Effect.gen(function*() {
      const runs = yield* Ref.make(0)
      const handler = Consumer.handler({
        schema: Schema.Struct({ key: Schema.String }),
        key: (body) => body.key,
        // Long enough for the other delivery's acquire to land while this one runs, on a loaded database server too.
        handle: () => Effect.zipRight(Ref.update(runs, (n) => n + 1), realPause(300)),
        leaseFor: "1 minute"
      })
      const delivery = (id: string, body: unknown, attempts = 1): Delivery => ({ queue: "jobs", id, body, attempts })
      // Two sends of the same work (different queue ids), delivered together.
      const [a, b] = yield* Effect.all([handler(delivery("q-1", { key: "k" })), handler(delivery("q-2", { key: "k" }))], {
        concurrency: 2
      })
      expect([a._tag, b._tag].sort()).toEqual(["Ack", "Retry"])
      const retry = [a, b].find((d) => d._tag === "Retry")!
      expect(retry._tag === "Retry" && Duration.toMillis(retry.delay) <= 60_000).toBe(true)
      expect(yield* handler(delivery("q-2", { key: "k" }, 2))).toEqual(Decision.Ack())
      expect(yield* Ref.get(runs)).toBe(1)
      expect(yield* handler(delivery("q-3", { nope: 1 }))).toEqual(Decision.Ack())
      const letters = yield* Effect.flatMap(DeadLetterStore, (s) => s.list({ limit: 10 }))
      expect(letters).toMatchObject([{ queue: "jobs", messageId: "q-3", body: "{\"nope\":1}" }])
      const alerts = yield* Effect.flatMap(AlertStore, (s) => s.list({ limit: 10 }))
      expect(alerts.map((alert) => alert.kind)).toEqual(["dead_letter"])
    }))
  })
