import { describe, expect, it } from "@effect/vitest"
import { OrderStore, reconcile, ReconcileCursors } from "@hookgate/core"
import { AlertStore } from "@hookgate/core/alerts"
import { reconcileConformance } from "@hookgate/testing/conformance"
import { cannotReconcile, ReconcileError, reconcileWith, type PulledEvent } from "@hookgate/core/providers"
import {
  MemoryStore,
  paidEvent,
  ScriptedMailer,
  signTestRequest,
  TEST_SECRET,
  TestListing,
  TestPipeline,
  TestProvider,
  withStoreFaults
} from "@hookgate/testing"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"

const body = (id: string, paid: boolean, email: string) =>
  paid
    ? paidEvent(`evt_${id}`, { orderId: id, email, amount: 1900, currency: "usd" })
    : JSON.stringify({ id: `evt_${id}`, type: "order.created", data: { orderId: id } })

reconcileConformance({
  name: "test",
  world: Effect.map(TestListing.make(), (listing) => ({ listing, created: 0 })).pipe(
    Effect.flatMap(({ listing }) =>
      Effect.map(TestProvider.make({ secret: TEST_SECRET, reconcile: listing.source }), (provider) => ({
        provider,
        publish: ({ email, id, paid }: { id: string; paid: boolean; email: string }) =>
          Effect.flatMap(Effect.clockWith((c) => c.currentTimeMillis), (now) =>
            Effect.zipRight(listing.add(body(id, paid, email), now), signTestRequest(TEST_SECRET, body(id, paid, email))))
      }))
    )
  )
})

const pipeline = (provider: Effect.Effect<any>) =>
  Layer.merge(
    TestPipeline.layer({ store: MemoryStore.layer, providers: [provider] }),
    ReconcileCursors.layerMemory()
  )

describe("reconcile", () => {
  it.live("30 orders no webhook brought: 30 emails, one alert for the run", () =>
    Effect.gen(function*() {
      const listing = yield* TestListing.make()
      for (let i = 0; i < 30; i++) yield* listing.add(body(`ord_${i}`, true, `b${i}@example.com`), Date.now() - i * 1000)
      return yield* Effect.gen(function*() {
        const report = yield* reconcile()
        expect(report.providers[0]).toMatchObject({ seen: 30, new: 30, known: 0 })
        const emails = yield* Effect.flatMap(ScriptedMailer, (m) => m.delivered)
        expect(new Set(emails.map((e) => e.email.to)).size).toBe(30)
        expect(emails).toHaveLength(30)
        const alerts = (yield* Effect.flatMap(AlertStore, (s) => s.list({ limit: 10 }))).filter((a) => a.kind === "webhooks_missing")
        expect(alerts).toHaveLength(1)
        expect(alerts[0]?.message).toMatch(/^30 paid orders arrived only through reconciliation/)
      }).pipe(Effect.provide(pipeline(TestProvider.make({ secret: TEST_SECRET, reconcile: listing.source }))))
    }))

  it.live("three runs at once: one email per order", () =>
    Effect.gen(function*() {
      const listing = yield* TestListing.make()
      for (let i = 0; i < 20; i++) yield* listing.add(body(`ord_${i}`, true, `b${i}@example.com`), Date.now() - i)
      return yield* Effect.gen(function*() {
        const reports = yield* Effect.all([reconcile(), reconcile(), reconcile()], { concurrency: 3 })
        expect(reports.reduce((n, r) => n + r.newOrders, 0)).toBe(20)
        const emails = yield* Effect.flatMap(ScriptedMailer, (m) => m.delivered)
        expect(emails).toHaveLength(20)
      }).pipe(Effect.provide(pipeline(TestProvider.make({ secret: TEST_SECRET, reconcile: listing.source }))))
    }))

  it.live("a listing that fails midway keeps its cursor where it was, and says why", () =>
    Effect.gen(function*() {
      const pulled = (id: string, created: number): PulledEvent => {
        const b = JSON.parse(body(id, true, `${id}@example.com`))
        return { created, event: { provider: "test", id: b.id, type: b.type, payload: b } as any }
      }
      let fail = true
      const source = reconcileWith(() =>
        Stream.concat(
          Stream.make(pulled("ord_newest", 5_000)),
          Stream.suspend(() =>
            fail
              ? Stream.fail(new ReconcileError({ provider: "test", reason: "malformed", detail: "page 2", requestId: "req_1" }))
              : Stream.make(pulled("ord_older", 4_000))
          )
        )
      )
      return yield* Effect.gen(function*() {
        const broken = yield* reconcile()
        expect(broken.failed).toBe(true)
        expect(broken.providers[0]).toMatchObject({ new: 1, cursor: null, error: { reason: "malformed", requestId: "req_1" } })
        fail = false
        const fixed = yield* reconcile()
        expect(fixed.providers[0]).toMatchObject({ new: 1, known: 1, cursor: 5_000, error: null })
      }).pipe(Effect.provide(pipeline(TestProvider.make({ secret: TEST_SECRET, reconcile: source }))))
    }))

  it.live("an order the store cannot take does not end the run: the others are sent, the cursor stays, the next run takes it", () =>
    Effect.gen(function*() {
      const listing = yield* TestListing.make()
      const paidAt = Date.now() - 60_000
      for (let i = 0; i < 5; i++) yield* listing.add(body(`ord_${i}`, true, `b${i}@example.com`), paidAt + i)
      const layer = Layer.merge(
        TestPipeline.layer({
          store: withStoreFaults(MemoryStore.layer, { failPut: 1 }),
          providers: [TestProvider.make({ secret: TEST_SECRET, reconcile: listing.source })]
        }),
        ReconcileCursors.layerMemory()
      )
      return yield* Effect.gen(function*() {
        const first = yield* reconcile()
        expect(first.providers[0]).toMatchObject({ seen: 5, new: 4, failed: 1, cursor: null, error: null })
        const second = yield* reconcile()
        expect(second.providers[0]).toMatchObject({ new: 1, known: 4, failed: 0, cursor: paidAt + 4 })
        expect(yield* Effect.flatMap(ScriptedMailer, (m) => m.delivered)).toHaveLength(5)
      }).pipe(Effect.provide(layer))
    }))

  it.live("a run that dies keeps its position: 12 orders paid at one instant, each run dying at its 5th store write, all sent once in 3 runs", () =>
    Effect.gen(function*() {
      const listing = yield* TestListing.make()
      const paidAt = Date.now() - 60_000
      // One instant for all: the cursor alone (a time) could not tell the taken from the rest.
      for (let i = 0; i < 12; i++) yield* listing.add(body(`ord_${String(i).padStart(2, "0")}`, true, `b${i}@example.com`), paidAt)
      let writes = 0
      // The process dies at its 5th write: the put never happens, the run ends there.
      const dyingRun = Effect.gen(function*() {
        const store = yield* OrderStore
        writes = 0
        return yield* reconcile({ concurrency: 1 }).pipe(
          Effect.provideService(OrderStore, { ...store, put: (...args) => (++writes === 5 ? Effect.interrupt : store.put(...args)) }),
          Effect.exit
        )
      })
      return yield* Effect.gen(function*() {
        for (let run = 0; run < 2; run++) expect(Exit.isInterrupted(yield* dyingRun)).toBe(true)
        // The third takes the last 4 (4 writes) and finishes the window: the cursor moves.
        const third = yield* dyingRun
        expect(Exit.isSuccess(third) && third.value.providers[0]).toMatchObject({ seen: 4, new: 4, known: 0, cursor: paidAt })
        const emails = yield* Effect.flatMap(ScriptedMailer, (m) => m.delivered)
        expect(emails.map((e) => e.email.to).sort()).toEqual(Array.from({ length: 12 }, (_, i) => `b${i}@example.com`).sort())
        // The next run reads from the cursor less the overlap again, and finds all 12 known.
        const next = yield* reconcile()
        expect(next.providers[0]).toMatchObject({ seen: 12, known: 12, new: 0 })
        expect(yield* Effect.flatMap(ScriptedMailer, (m) => m.delivered)).toHaveLength(12)
      }).pipe(Effect.provide(pipeline(TestProvider.make({ secret: TEST_SECRET, reconcile: listing.source }))))
    }))

  it.live("a run with a `since` of its own reads its window whole and keeps no position", () =>
    Effect.gen(function*() {
      const listing = yield* TestListing.make()
      const paidAt = Date.now() - 60_000
      for (let i = 0; i < 3; i++) yield* listing.add(body(`ord_${i}`, true, `b${i}@example.com`), paidAt)
      const cursors = yield* ReconcileCursors.makeMemory()
      yield* cursors.keepProgress("test", { created: paidAt, id: "evt_ord_1" }, 0)
      const layer = Layer.merge(
        TestPipeline.layer({ store: MemoryStore.layer, providers: [TestProvider.make({ secret: TEST_SECRET, reconcile: listing.source })] }),
        Layer.succeed(ReconcileCursors, cursors)
      )
      const report = yield* reconcile({ since: "1 hour" }).pipe(Effect.provide(layer))
      expect(report.providers[0]).toMatchObject({ seen: 3, new: 3, cursor: paidAt })
      // Its window may not reach back to where the unfinished run was: that position stays.
      expect(yield* cursors.progress("test")).toEqual(Option.some({ created: paidAt, id: "evt_ord_1" }))
    }))

  it.live("a provider that cannot reconcile is skipped with its reason", () =>
    Effect.gen(function*() {
      const report = yield* reconcile().pipe(
        Effect.provide(pipeline(TestProvider.make({ secret: TEST_SECRET, reconcile: cannotReconcile("no list API") })))
      )
      expect(report.providers).toEqual([])
      expect(report.skipped).toEqual([{ provider: "test", reason: "no list API" }])
    }))
})
