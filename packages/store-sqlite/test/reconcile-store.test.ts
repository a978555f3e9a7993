import { describe, expect, it } from "@effect/vitest"
import { leaseTerms, NewOrder, OrderStore, ReconcileCursors } from "@hookgate/core"
import { newOrder } from "@hookgate/testing"
import { SqliteStore } from "@hookgate/store-sqlite"
import { Effect, Option } from "effect"

const store = SqliteStore.layer({ filename: ":memory:" })

describe("SQLite: what reconciliation stores", () => {
  it.effect("an order keeps its source: webhook by default, reconcile when a run pulled it", () =>
    Effect.gen(function*() {
      const orders = yield* OrderStore
      const byWebhook = yield* newOrder("o_webhook")
      const pulled = yield* newOrder("o_pulled")
      yield* orders.put(byWebhook, yield* leaseTerms())
      yield* orders.put(new NewOrder({ ...pulled, source: "reconcile" }), yield* leaseTerms())
      const read = yield* Effect.all([orders.get(byWebhook.key), orders.get(pulled.key)])
      expect(read.map((o) => Option.getOrThrow(o).source)).toEqual(["webhook", "reconcile"])
      const listed = yield* orders.list({ limit: 10 })
      expect(listed.map((o) => [o.key, o.source]).sort()).toEqual([["test:o_pulled", "reconcile"], ["test:o_webhook", "webhook"]])
    }).pipe(Effect.provide(store)))

  it.effect("a provider's cursor is kept, and only ever moves forward", () =>
    Effect.gen(function*() {
      const cursors = yield* ReconcileCursors
      expect(yield* cursors.get("stripe")).toEqual(Option.none())
      yield* cursors.advance("stripe", 5_000, 1)
      yield* cursors.advance("stripe", 4_000, 2) // a slower run that saw less
      yield* cursors.advance("creem", 7_000, 3)
      expect(yield* cursors.get("stripe")).toEqual(Option.some(5_000))
      yield* cursors.advance("stripe", 9_000, 4)
      expect(yield* cursors.get("stripe")).toEqual(Option.some(9_000))
      expect(yield* cursors.get("creem")).toEqual(Option.some(7_000))
    }).pipe(Effect.provide(store)))

  it.effect("an unfinished run's position is kept beside the cursor, and forgotten when a run finishes", () =>
    Effect.gen(function*() {
      const cursors = yield* ReconcileCursors
      expect(yield* cursors.progress("stripe")).toEqual(Option.none())
      // A first run that has not finished: a position, still no cursor.
      yield* cursors.keepProgress("stripe", { created: 3_000, id: "evt_b" }, 1)
      expect(yield* cursors.get("stripe")).toEqual(Option.none())
      yield* cursors.keepProgress("stripe", { created: 3_000, id: "evt_c" }, 2)
      expect(yield* cursors.progress("stripe")).toEqual(Option.some({ created: 3_000, id: "evt_c" }))
      yield* cursors.advance("stripe", 5_000, 3)
      expect(yield* cursors.get("stripe")).toEqual(Option.some(5_000))
      expect(yield* cursors.progress("stripe")).toEqual(Option.some({ created: 3_000, id: "evt_c" }))
      yield* cursors.clearProgress("stripe")
      expect(yield* cursors.progress("stripe")).toEqual(Option.none())
      expect(yield* cursors.get("stripe")).toEqual(Option.some(5_000))
    }).pipe(Effect.provide(store)))

  it.effect("the order keys an owner alert named are kept per provider, each once, and read back in chunks", () =>
    Effect.gen(function*() {
      const cursors = yield* ReconcileCursors
      const keys = Array.from({ length: 120 }, (_, i) => `creem:ord_${i}`) // more than one chunk of 50
      expect(yield* cursors.alerted("creem", keys)).toEqual(new Set())
      yield* cursors.recordAlerted("creem", keys.slice(0, 110), 1)
      yield* cursors.recordAlerted("creem", ["creem:ord_0", "creem:ord_110"], 2) // one already there: left alone
      expect(yield* cursors.alerted("creem", keys)).toEqual(new Set([...keys.slice(0, 111)]))
      expect(yield* cursors.alerted("stripe", keys)).toEqual(new Set())
    }).pipe(Effect.provide(store)))
})
