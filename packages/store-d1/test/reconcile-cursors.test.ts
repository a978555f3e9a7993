import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { ReconcileCursors } from "@hookgate/core"
import { D1Store } from "@hookgate/store-d1"
import { Effect, Option } from "effect"
import { type D1Pool, startD1Pool } from "./support.js"

let pool: D1Pool
beforeAll(async () => {
  pool = await startD1Pool(2)
})
afterAll(() => pool?.dispose())

const withD1 = <A, E>(body: Effect.Effect<A, E, ReconcileCursors>) =>
  Effect.flatMap(Effect.promise(() => pool.fresh()), (db) => Effect.provide(body, D1Store.layer({ db, migrate: true })))

describe("D1: what reconciliation keeps beside the cursor (migration 0011)", () => {
  it.effect("a run's position, and the order keys an owner alert named (more than D1 binds in one statement)", () =>
    withD1(Effect.gen(function*() {
      const cursors = yield* ReconcileCursors
      yield* cursors.keepProgress("stripe", { created: 3_000, id: "evt_b" }, 1)
      expect(yield* cursors.progress("stripe")).toEqual(Option.some({ created: 3_000, id: "evt_b" }))
      expect(yield* cursors.get("stripe")).toEqual(Option.none())
      yield* cursors.clearProgress("stripe")
      expect(yield* cursors.progress("stripe")).toEqual(Option.none())
      const keys = Array.from({ length: 120 }, (_, i) => `creem:ord_${i}`)
      yield* cursors.recordAlerted("creem", keys.slice(0, 110), 1)
      yield* cursors.recordAlerted("creem", ["creem:ord_0"], 2)
      expect((yield* cursors.alerted("creem", keys)).size).toBe(110)
      expect(yield* cursors.alerted("creem", [])).toEqual(new Set())
    })))
})
