import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { type AttemptNote, EventReceipt, Lease, OrderStore, RunLog, type StoredRun } from "@hookgate/core"
import { Alert, AlertStore } from "@hookgate/core/alerts"
import { SendReceipt } from "@hookgate/core/mail"
import { newOrder } from "../fixtures.js"

/**
 * The storage and lease contract every store must keep (in-memory, SQLite,
 * D1, Postgres). Each test gets a fresh store from `makeLayer`. The alert
 * ledger on its own is `alertStoreConformance`.
 */
export const storeConformance = (name: string, makeLayer: () => Layer.Layer<OrderStore | Lease | AlertStore, unknown>) =>
  describe(`store conformance: ${name}`, () => {
    const test = (title: string, body: Effect.Effect<void, unknown, OrderStore | Lease | AlertStore>) =>
      it.effect(title, () => Effect.provide(body, makeLayer()))
    const T0 = 1_700_000_000_000
    const LEASE = 300_000
    const acquire = (key: string, now: number, options: { dueOnly?: boolean; maxAttempts?: number } = {}) =>
      Effect.flatMap(Lease, (lease) =>
        lease.acquire(key, { token: crypto.randomUUID(), 
          now,
          until: now + LEASE,
          maxAttempts: options.maxAttempts ?? 8,
          dueOnly: options.dueOnly ?? false
        }))
    const receipt = (id: string, at = T0) => new SendReceipt({ mailer: "m", messageId: id, acceptedAt: at })
    const fail = (attempts: number, now: number, extra: Partial<{ status: "pending" | "failed" | "capped"; alert: Alert; uncertain: boolean }> = {}) => ({
      now,
      error: `boom ${attempts}`,
      attempts,
      status: extra.status ?? "pending",
      nextAttemptAt: now + 60_000,
      uncertain: extra.uncertain ?? false,
      alert: Option.fromNullable(extra.alert)
    })
    const putNew = (id: string, now = T0, email?: string) =>
      Effect.gen(function*() {
        const store = yield* OrderStore
        const result = yield* store.put(yield* newOrder(id, email), { token: crypto.randomUUID(), now, until: now + LEASE })
        if (result._tag !== "Stored") return yield* Effect.dieMessage(`expected Stored, got ${result._tag}`)
        return result.leased
      })
    const get = (key: string) => Effect.flatMap(OrderStore, (store) => Effect.flatMap(store.get(key), Effect.orDie))

    test("list filters by status and provider, finds by order key or email, and pages newest first", Effect.gen(function*() {
      const store = yield* OrderStore
      yield* putNew("a", T0, "a@example.com")
      yield* putNew("b", T0 + 1, "b@example.com")
      yield* putNew("c", T0 + 2, "b@example.com")
      yield* putNew("d", T0 + 2, "d@example.com")
      const keys = (orders: ReadonlyArray<{ readonly key: string }>) => orders.map((o) => o.key)
      expect(keys(yield* store.list({ limit: 10 }))).toEqual(["test:c", "test:d", "test:b", "test:a"])
      expect(keys(yield* store.list({ limit: 10, search: "test:a" }))).toEqual(["test:a"])
      expect(keys(yield* store.list({ limit: 10, search: "B@Example.com" }))).toEqual(["test:c", "test:b"])
      expect(keys(yield* store.list({ limit: 10, search: "nobody@example.com" }))).toEqual([])
      expect(keys(yield* store.list({ limit: 10, provider: "test" }))).toHaveLength(4)
      expect(keys(yield* store.list({ limit: 10, provider: "other" }))).toEqual([])
      expect(keys(yield* store.list({ limit: 10, status: "sent" }))).toEqual([])
      // Pages of two continue after the last row shown, with no row twice or missed.
      const first = yield* store.list({ limit: 2 })
      const last = first[first.length - 1]!
      const second = yield* store.list({ limit: 2, after: { createdAt: last.createdAt, key: last.key } })
      expect([...keys(first), ...keys(second)]).toEqual(["test:c", "test:d", "test:b", "test:a"])
      expect(keys(yield* store.list({ limit: 10, search: "b@example.com", after: { createdAt: T0 + 2, key: "test:c" } }))).toEqual(["test:b"])
    }))

    test("put stores a new order leased to the caller", Effect.gen(function*() {
      const leased = yield* putNew("a")
      expect(leased.token).toMatch(/\S{16,}/)
      const order = yield* get("test:a")
      expect(order.status).toBe("pending")
      expect(order.attempts).toBe(0)
      expect(order.leaseToken).toBe(leased.token)
      expect(order.leaseExpiresAt).toBe(T0 + LEASE)
      expect(order.nextAttemptAt).toBe(T0)
      expect(order.fulfilment.email).toBe("a@example.com")
      expect(order.fulfilment.metadata).toEqual({ plan: "pro" })
      expect(order.eventId).toBe("evt_a")
    }))

    test("put of the same order answers AlreadyStored; a different payload answers Conflict and changes nothing", Effect.gen(function*() {
      const store = yield* OrderStore
      yield* putNew("a")
      const before = yield* get("test:a")
      const again = yield* store.put(yield* newOrder("a"), { token: crypto.randomUUID(), now: T0 + 1, until: T0 + 1 + LEASE })
      expect(again._tag).toBe("AlreadyStored")
      const other = yield* store.put(yield* newOrder("a", "mallory@example.com"), { token: crypto.randomUUID(), now: T0 + 2, until: T0 + 2 + LEASE })
      expect(other._tag).toBe("Conflict")
      if (other._tag === "Conflict") expect(other.existing.fulfilment.email).toBe("a@example.com")
      expect(yield* get("test:a")).toEqual(before)
    }))

    test("a fresh lease cannot be taken; an expired one is taken over with a new token and marks the order uncertain", Effect.gen(function*() {
      const first = yield* putNew("a")
      expect(Option.isNone(yield* acquire("test:a", T0 + LEASE - 1))).toBe(true)
      const second = yield* acquire("test:a", T0 + LEASE)
      expect(Option.isSome(second)).toBe(true)
      const token = Option.getOrThrow(second).token
      expect(token).not.toBe(first.token)
      const order = yield* get("test:a")
      expect(order.leaseToken).toBe(token)
      expect(order.uncertain).toBe(true)
    }))

    test("a stale token can neither complete nor release, and changes nothing", Effect.gen(function*() {
      const lease = yield* Lease
      const first = yield* putNew("a")
      const second = Option.getOrThrow(yield* acquire("test:a", T0 + LEASE))
      const before = yield* get("test:a")
      expect(yield* lease.complete("test:a", first.token, receipt("late"), { now: T0 + LEASE + 1, mailerHonoursKeys: true }))
        .toEqual(Option.none())
      expect(yield* lease.release("test:a", first.token, fail(1, T0 + LEASE + 1, { status: "capped" }))).toBe(false)
      expect(yield* get("test:a")).toEqual(before)
      expect(Option.isSome(yield* lease.complete("test:a", second.token, receipt("m-2"), { now: T0 + LEASE + 2, mailerHonoursKeys: true })))
        .toBe(true)
      const order = yield* get("test:a")
      expect(order.status).toBe("sent")
      expect(order.messageId).toBe("m-2")
      expect(order.sentAt).toBe(T0 + LEASE + 2)
      expect(order.leaseToken).toBeNull()
    }))

    test("a sent order cannot be leased again", Effect.gen(function*() {
      const lease = yield* Lease
      const leased = yield* putNew("a")
      yield* lease.complete("test:a", leased.token, receipt("m-1"), { now: T0 + 1, mailerHonoursKeys: true })
      expect(Option.isNone(yield* acquire("test:a", T0 + 10 * LEASE))).toBe(true)
      expect(Option.isNone(yield* acquire("test:a", T0 + 10 * LEASE, { dueOnly: true }))).toBe(true)
    }))

    test("completing an uncertain order counts a possible duplicate only when the mailer ignores keys", Effect.gen(function*() {
      const lease = yield* Lease
      yield* putNew("a")
      yield* putNew("b")
      const a = Option.getOrThrow(yield* acquire("test:a", T0 + LEASE))
      const b = Option.getOrThrow(yield* acquire("test:b", T0 + LEASE))
      const doneA = yield* lease.complete("test:a", a.token, receipt("m-a"), { now: T0 + LEASE, mailerHonoursKeys: true })
      const doneB = yield* lease.complete("test:b", b.token, receipt("m-b"), { now: T0 + LEASE, mailerHonoursKeys: false })
      expect(doneA).toEqual(Option.some({ possibleDuplicate: false }))
      expect(doneB).toEqual(Option.some({ possibleDuplicate: true }))
      expect((yield* get("test:a")).possibleDuplicates).toBe(0)
      expect((yield* get("test:b")).possibleDuplicates).toBe(1)
    }))

    test("release records the failure, frees the lease and schedules the next attempt", Effect.gen(function*() {
      const lease = yield* Lease
      const leased = yield* putNew("a")
      expect(yield* lease.release("test:a", leased.token, fail(1, T0 + 5, { uncertain: true }))).toBe(true)
      const order = yield* get("test:a")
      expect(order.status).toBe("pending")
      expect(order.attempts).toBe(1)
      expect(order.lastError).toBe("boom 1")
      expect(order.nextAttemptAt).toBe(T0 + 5 + 60_000)
      expect(order.leaseToken).toBeNull()
      expect(order.uncertain).toBe(true)
      // Due-only acquisition waits for the next attempt; any other sender may take it now.
      expect(Option.isNone(yield* acquire("test:a", T0 + 10, { dueOnly: true }))).toBe(true)
      expect(Option.isSome(yield* acquire("test:a", T0 + 10))).toBe(true)
    }))

    test("a release that caps stores its alert in the same step; a stale one stores nothing", Effect.gen(function*() {
      const alerts = yield* AlertStore
      const lease = yield* Lease
      const leased = yield* putNew("a")
      const alert = (id: string) =>
        new Alert({ id, kind: "capped", orderKey: "test:a", message: "capped", createdAt: T0, deliveredAt: null, deliveryError: null })
      expect(yield* lease.release("test:a", "not-the-token", fail(8, T0, { status: "capped", alert: alert("stale") }))).toBe(false)
      expect(yield* alerts.list({ limit: 10 })).toEqual([])
      expect(yield* lease.release("test:a", leased.token, fail(8, T0, { status: "capped", alert: alert("real") }))).toBe(true)
      expect((yield* get("test:a")).status).toBe("capped")
      expect((yield* alerts.list({ limit: 10 })).map((a) => a.id)).toEqual(["real"])
      expect(Option.isNone(yield* acquire("test:a", T0 + 10 * LEASE))).toBe(true)
    }))

    test("the attempts that may have reached the buyer are counted: each release after Unknown, each unreleased lease taken over", Effect.gen(function*() {
      const lease = yield* Lease
      const first = yield* putNew("a")
      expect((yield* get("test:a")).uncertainAttempts).toBe(0)
      expect(yield* lease.release("test:a", first.token, fail(1, T0, { uncertain: true }))).toBe(true)
      expect((yield* get("test:a")).uncertainAttempts).toBe(1)
      // Taken at once (its lease free): nothing counted. Its holder then dies; the takeover counts it.
      const second = Option.getOrThrow(yield* acquire("test:a", T0 + 1))
      expect(second.order.uncertainAttempts).toBe(1)
      const third = Option.getOrThrow(yield* acquire("test:a", T0 + 1 + LEASE))
      expect(third.order.uncertainAttempts).toBe(2)
      // A release that did not end Unknown counts nothing; a stale token changes nothing.
      expect(yield* lease.release("test:a", second.token, fail(2, T0 + 2 + LEASE, { uncertain: true }))).toBe(false)
      expect(yield* lease.release("test:a", third.token, fail(2, T0 + 2 + LEASE))).toBe(true)
      expect((yield* get("test:a")).uncertainAttempts).toBe(2)
    }))

    test("acquire refuses an order at the attempt cap", Effect.gen(function*() {
      const lease = yield* Lease
      const leased = yield* putNew("a")
      yield* lease.release("test:a", leased.token, fail(3, T0))
      expect(Option.isNone(yield* acquire("test:a", T0 + LEASE, { maxAttempts: 3 }))).toBe(true)
      expect(Option.isSome(yield* acquire("test:a", T0 + LEASE, { maxAttempts: 4 }))).toBe(true)
    }))

    test("due lists pending orders that are due, free and below the cap, oldest first, up to the limit", Effect.gen(function*() {
      const store = yield* OrderStore
      const lease = yield* Lease
      const sent = yield* putNew("sent")
      yield* lease.complete("test:sent", sent.token, receipt("m"), { now: T0, mailerHonoursKeys: true })
      const later = yield* putNew("later")
      yield* lease.release("test:later", later.token, { ...fail(1, T0), nextAttemptAt: T0 + 10 * LEASE })
      const capped = yield* putNew("capped")
      yield* lease.release("test:capped", capped.token, fail(8, T0, { status: "capped" }))
      const soon = yield* putNew("soon")
      yield* lease.release("test:soon", soon.token, { ...fail(1, T0), nextAttemptAt: T0 + 1 })
      yield* putNew("leased", T0 + 2 * LEASE) // freshly leased at the time we look
      yield* putNew("crashed", T0) // leased, never released: expired by the time we look
      const now = T0 + 2 * LEASE + 1
      expect(yield* store.due(now, { limit: 10, maxAttempts: 8 })).toEqual(["test:crashed", "test:soon"])
      expect(yield* store.due(now, { limit: 1, maxAttempts: 8 })).toEqual(["test:crashed"])
      expect(yield* store.due(now, { limit: 10, maxAttempts: 1 })).toEqual(["test:crashed"])
    }))

    test("receipts keep each verified event once and count its deliveries", Effect.gen(function*() {
      const store = yield* OrderStore
      const event = (outcome: "duplicate" | "ignored", at: number) =>
        new EventReceipt({ provider: "test", eventId: "evt_1", eventType: "order.paid", orderKey: "test:a", outcome, receivedAt: at })
      yield* store.recordReceipt(event("duplicate", T0))
      yield* store.recordReceipt(event("duplicate", T0 + 1))
      yield* store.recordReceipt(new EventReceipt({ provider: "test", eventId: "evt_2", eventType: "x", orderKey: null, outcome: "ignored", receivedAt: T0 }))
      const rows = yield* store.receipts({ orderKey: "test:a", limit: 10 })
      expect(rows).toHaveLength(1)
      expect(rows[0]!.deliveries).toBe(2)
      expect(rows[0]!.receivedAt).toBe(T0)
      expect((yield* store.stats).receipts).toBe(2)
    }))

    test("an unfulfillable receipt keeps its decoding error and object id, and is listed by outcome", Effect.gen(function*() {
      const store = yield* OrderStore
      yield* store.recordReceipt(new EventReceipt({ provider: "test", eventId: "evt_1", eventType: "order.paid", orderKey: "test:a", outcome: "duplicate", receivedAt: T0 }))
      yield* store.recordReceipt(new EventReceipt({
        provider: "stripe",
        eventId: "evt_9",
        eventType: "checkout.session.completed",
        orderKey: null,
        outcome: "unfulfillable",
        receivedAt: T0 + 1,
        detail: "fulfilment: the email is empty",
        objectId: "cs_test_9"
      }))
      const rows = yield* store.receipts({ outcomes: ["unfulfillable", "malformed"], limit: 10 })
      expect(rows.map((r) => [r.eventId, r.outcome, r.detail, r.objectId])).toEqual([
        ["evt_9", "unfulfillable", "fulfilment: the email is empty", "cs_test_9"]
      ])
      const all = yield* store.receipts({ limit: 10 })
      expect(all.find((r) => r.eventId === "evt_1")).toMatchObject({ detail: null, objectId: null })
    }))

    test("counters and stats", Effect.gen(function*() {
      const store = yield* OrderStore
      const lease = yield* Lease
      const a = yield* putNew("a")
      yield* putNew("b")
      yield* lease.complete("test:a", a.token, receipt("m"), { now: T0, mailerHonoursKeys: true })
      yield* store.notePrevented("test:a")
      yield* store.notePrevented("test:a")
      yield* store.noteLeaseLost("test:b")
      const stats = yield* store.stats
      expect(stats.orders).toEqual({ pending: 1, sent: 1, failed: 0, capped: 0, unknown: 0 })
      expect(stats.duplicatesPrevented).toBe(2)
      expect(stats.leasesLost).toBe(1)
      expect(stats.possibleDuplicates).toBe(0)
      expect((yield* store.list({ status: "sent", limit: 10 })).map((o) => o.key)).toEqual(["test:a"])
      expect((yield* store.list({ limit: 10 })).map((o) => o.key).sort()).toEqual(["test:a", "test:b"])
    }))

    test("stats count the alerts stored beside the orders", Effect.gen(function*() {
      const alerts = yield* AlertStore
      yield* alerts.save(new Alert({ id: "x", kind: "failed", orderKey: "test:a", message: "m", createdAt: T0, deliveredAt: null, deliveryError: null }))
      expect((yield* Effect.flatMap(OrderStore, (store) => store.stats)).alerts).toBe(1)
    }))

    test("requeue puts a capped or failed order back, due now, and refuses others", Effect.gen(function*() {
      const store = yield* OrderStore
      const lease = yield* Lease
      const a = yield* putNew("a")
      yield* lease.release("test:a", a.token, fail(8, T0, { status: "capped" }))
      yield* putNew("b")
      const requeued = yield* store.requeue("test:a", T0 + 7)
      expect(Option.map(requeued, (o) => o.status)).toEqual(Option.some("pending"))
      const order = yield* get("test:a")
      expect(order).toMatchObject({ status: "pending", attempts: 0, nextAttemptAt: T0 + 7, lastError: "boom 8" })
      expect(yield* store.due(T0 + 7, { limit: 10, maxAttempts: 8 })).toEqual(["test:a"])
      expect(Option.isNone(yield* store.requeue("test:b", T0))).toBe(true)
      expect(Option.isNone(yield* store.requeue("test:none", T0))).toBe(true)
    }))

    const note = (number: number, outcome: AttemptNote["outcome"], errorClass: string | null, detail: string | null): AttemptNote => ({
      number,
      startedAt: T0 - number, // one per attempt, so a column mixed up shows
      outcome,
      errorClass,
      detail
    })
    const history = (key: string) =>
      Effect.flatMap(OrderStore, (store) =>
        Effect.map(store.attempts(key, { limit: 10 }), (rows) =>
          rows.map((a) => {
            expect(a.startedAt).toBe(T0 - a.number)
            return [a.number, a.outcome, a.errorClass, a.detail, a.recordedAt]
          })))

    test("release and complete keep the attempt's row with the write; a stale token keeps none", Effect.gen(function*() {
      const lease = yield* Lease
      const a = yield* putNew("a")
      expect(yield* history("test:a")).toEqual([])
      const hostile = `<script>alert(1)</script> ${"x".repeat(40)}`
      expect(yield* lease.release("test:a", a.token, { ...fail(1, T0 + 1), attempt: note(1, "retry", "Transient", hostile) })).toBe(true)
      // The same token again, and a stranger's token: neither applies, so neither is kept.
      expect(yield* lease.release("test:a", a.token, { ...fail(2, T0 + 2), attempt: note(2, "retry", "Transient", "late") })).toBe(false)
      expect(yield* lease.release("test:a", "not-the-token", { ...fail(2, T0 + 2), attempt: note(2, "retry", "Unknown", "x") })).toBe(false)
      expect(yield* history("test:a")).toEqual([[1, "retry", "Transient", hostile, T0 + 1]])
      const second = Option.getOrThrow(yield* acquire("test:a", T0 + 60_000))
      const stale = yield* lease.complete("test:a", a.token, receipt("m0"), { now: T0 + 60_001, mailerHonoursKeys: true, attempt: note(2, "sent", null, "m0") })
      expect(Option.isNone(stale)).toBe(true)
      expect(Option.isSome(yield* lease.complete("test:a", second.token, receipt("m1"), {
        now: T0 + 60_002,
        mailerHonoursKeys: false,
        attempt: note(2, "sent", null, "m1")
      }))).toBe(true)
      expect(yield* history("test:a")).toEqual([[2, "sent", null, "m1", T0 + 60_002], [1, "retry", "Transient", hostile, T0 + 1]])
      // Without a note (a caller that keeps no history) the write alone.
      const b = yield* putNew("b")
      expect(Option.isSome(yield* lease.complete("test:b", b.token, receipt("m2"), { now: T0, mailerHonoursKeys: true }))).toBe(true)
      expect(yield* history("test:b")).toEqual([])
      expect((yield* get("test:b")).status).toBe("sent")
      // A write without a note after one with a note keeps nothing more: each row is its own write's.
      const c = yield* putNew("c")
      expect(yield* lease.release("test:c", c.token, { ...fail(1, T0 + 3), attempt: note(1, "retry", "Transient", "first") })).toBe(true)
      const again = Option.getOrThrow(yield* acquire("test:c", T0 + 100_000))
      expect(yield* lease.release("test:c", again.token, fail(2, T0 + 100_001))).toBe(true)
      const third = Option.getOrThrow(yield* acquire("test:c", T0 + 200_000))
      expect(Option.isSome(yield* lease.complete("test:c", third.token, receipt("m3"), { now: T0 + 200_001, mailerHonoursKeys: true })))
        .toBe(true)
      expect(yield* history("test:c")).toEqual([[1, "retry", "Transient", "first", T0 + 3]])
    }))

    test("a capping release keeps its attempt and its alert in one step; a lost lease keeps its attempt once", Effect.gen(function*() {
      const store = yield* OrderStore
      const lease = yield* Lease
      const a = yield* putNew("a")
      const alert = new Alert({ id: "capped:a", kind: "capped", orderKey: "test:a", message: "cap", createdAt: T0 + 5, deliveredAt: null, deliveryError: null })
      expect(yield* lease.release("test:a", a.token, { ...fail(8, T0 + 5, { status: "capped", alert }), attempt: note(8, "capped", "Unknown", "timeout") }))
        .toBe(true)
      expect(yield* history("test:a")).toEqual([[8, "capped", "Unknown", "timeout", T0 + 5]])
      expect((yield* Effect.flatMap(AlertStore, (s) => s.list({ limit: 10, orderKey: "test:a" }))).map((x) => x.id)).toEqual(["capped:a"])
      // The late finisher of a lease taken over: counted, and its attempt kept once under its token.
      const lost = { token: "stale-token", now: T0 + 9, attempt: note(3, "lease_lost", null, "m9") }
      yield* store.noteLeaseLost("test:a", lost)
      yield* store.noteLeaseLost("test:a", lost)
      expect((yield* get("test:a")).leasesLost).toBe(2)
      expect(yield* history("test:a")).toEqual([[3, "lease_lost", null, "m9", T0 + 9], [8, "capped", "Unknown", "timeout", T0 + 5]])
      expect(yield* history("test:none")).toEqual([])
    }))

    test("the run log keeps each kind's last run; a run that finished earlier does not replace a later one", Effect.gen(function*() {
      const log = yield* RunLog
      expect(yield* log.last).toEqual([])
      yield* log.record({ kind: "sweep", startedAt: T0, finishedAt: T0 + 10, report: `{"n":1}` })
      yield* log.record({ kind: "sweep", startedAt: T0 + 1, finishedAt: T0 + 5, report: `{"n":2}` })
      yield* log.record({ kind: "reconcile", startedAt: T0 + 2, finishedAt: T0 + 3, report: `{"n":"<b>3</b>"}` })
      const byKind = (runs: ReadonlyArray<StoredRun>) => Object.fromEntries(runs.map((run) => [run.kind, run]))
      expect(byKind(yield* log.last)).toEqual({
        sweep: { kind: "sweep", startedAt: T0, finishedAt: T0 + 10, report: `{"n":1}` },
        reconcile: { kind: "reconcile", startedAt: T0 + 2, finishedAt: T0 + 3, report: `{"n":"<b>3</b>"}` }
      })
      yield* log.record({ kind: "sweep", startedAt: T0 + 20, finishedAt: T0 + 30, report: `{"n":4}` })
      expect(byKind(yield* log.last)["sweep"]).toEqual({ kind: "sweep", startedAt: T0 + 20, finishedAt: T0 + 30, report: `{"n":4}` })
    }))

    test("fifty concurrent puts store once; fifty concurrent acquires of an expired lease grant one", Effect.gen(function*() {
      const store = yield* OrderStore
      const order = yield* newOrder("race")
      const puts = yield* Effect.all(
        Array.from({ length: 50 }, () => store.put(order, { token: crypto.randomUUID(), now: T0, until: T0 + LEASE })),
        { concurrency: "unbounded" }
      )
      expect(puts.filter((p) => p._tag === "Stored")).toHaveLength(1)
      expect(puts.filter((p) => p._tag === "AlreadyStored")).toHaveLength(49)
      const grants = yield* Effect.all(
        Array.from({ length: 50 }, () => acquire("test:race", T0 + LEASE)),
        { concurrency: "unbounded" }
      )
      expect(grants.filter(Option.isSome)).toHaveLength(1)
    }))
  })
