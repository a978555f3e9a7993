import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { D1Store } from "@hookgate/store-d1"
import { SqlStore } from "@hookgate/store-sql"
import { Effect, Layer } from "effect"
import { type D1Pool, startD1Pool } from "./support.js"

let pool: D1Pool
beforeAll(async () => {
  pool = await startD1Pool(4)
})
afterAll(() => pool?.dispose())

const withD1 = <A, E>(body: Effect.Effect<A, E, SqlStore.SqlAtomic | SqlClient.SqlClient>) =>
  Effect.flatMap(Effect.promise(() => pool.fresh()), (db) =>
    Effect.provide(
      body,
      D1Store.layerBatchAtomic().pipe(Layer.provideMerge(D1Store.layerClient({ db, migrate: true })))
    ))

describe("SqlAtomic as one D1 batch", () => {
  it.effect("answers each statement's rows, in order", () =>
    withD1(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const atomic = yield* SqlStore.SqlAtomic
      const rows = yield* atomic.run([
        sql`INSERT INTO hookgate_alerts (alert_id, kind, message, created_at) VALUES (${"a"}, ${"capped"}, ${"m"}, ${1}) RETURNING alert_id`,
        sql`UPDATE hookgate_alerts SET message = ${"n"} WHERE alert_id = ${"nope"} RETURNING alert_id`,
        sql`SELECT COUNT(*) AS n FROM hookgate_alerts`
      ])
      expect(rows).toEqual([[{ alert_id: "a" }], [], [{ n: 1 }]])
    })))

  it.effect("stands or falls as a whole: a failing statement undoes the ones before it", () =>
    withD1(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const atomic = yield* SqlStore.SqlAtomic
      const error = yield* Effect.flip(atomic.run([
        sql`INSERT INTO hookgate_alerts (alert_id, kind, message, created_at) VALUES (${"a"}, ${"capped"}, ${"m"}, ${1})`,
        sql`INSERT INTO hookgate_alerts (alert_id, kind, message, created_at) VALUES (${"a"}, ${"capped"}, ${"m"}, ${1})`
      ]))
      expect(error._tag).toBe("SqlError")
      expect(yield* sql`SELECT * FROM hookgate_alerts`).toEqual([])
    })))

  it.effect("D1 here refuses a statement with more than 100 parameters, as in production", () =>
    withD1(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const select = (n: number) => sql.unsafe(`SELECT ${Array.from({ length: n }, () => "?").join(", ")}`, Array.from({ length: n }, (_, i) => i))
      expect(yield* select(100)).toHaveLength(1)
      const error = yield* Effect.flip(select(101))
      expect(String(error.cause)).toContain("too many SQL variables")
    })))

  it.effect("withTransaction is refused on D1, which is why SqlAtomic exists", () =>
    withD1(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const exit = yield* Effect.exit(sql.withTransaction(sql`SELECT 1`))
      expect(exit._tag).toBe("Failure")
    })))
})
