import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { D1Store } from "@hookgate/store-d1"
import { Effect, Tracer } from "effect"
import { make } from "../src/direct-statements.js"
import { type D1Pool, startD1Pool, testDatabase } from "./support.js"

// store-sql's compiled statements on the D1 binding itself: prepared once per text,
// through the client only when a tracer wants its span.

let pool: D1Pool
beforeAll(async () => {
  pool = await startD1Pool(3)
})
afterAll(() => pool?.dispose())

/** A migrated database whose `prepare` calls are counted by text. */
const counted = Effect.gen(function*() {
  const db = testDatabase(yield* Effect.promise(() => pool.fresh()))
  yield* D1Store.applyMigrations(db)
  const prepared: Array<string> = []
  const counting: D1Store.D1Database = Object.assign(Object.create(db) as D1Store.D1Database, {
    prepare: (sql: string) => {
      prepared.push(sql)
      return db.prepare(sql)
    }
  })
  return { db: counting, prepared }
})

const INSERT = "INSERT INTO hookgate_alerts (alert_id, kind, message, created_at) VALUES (?, ?, ?, ?) RETURNING alert_id"
const notThroughTheClient = Effect.die("went through the client")

describe("DirectStatements on D1", () => {
  it.effect("runs a statement on the binding and answers its rows; each text is prepared once", () =>
    Effect.gen(function*() {
      const { db, prepared } = yield* counted
      const direct = make(db)
      expect(yield* direct.run(INSERT, ["a1", "capped", "m", 1], () => notThroughTheClient)).toEqual([{ alert_id: "a1" }])
      expect(yield* direct.run(INSERT, ["a2", "capped", "m", 2], () => notThroughTheClient)).toEqual([{ alert_id: "a2" }])
      expect(prepared).toEqual([INSERT])
    }))

  it.effect("a statement D1 refuses is a SqlError, not a defect", () =>
    Effect.gen(function*() {
      const { db } = yield* counted
      const direct = make(db)
      yield* direct.run(INSERT, ["a1", "capped", "m", 1], () => notThroughTheClient)
      const error = yield* Effect.flip(direct.run(INSERT, ["a1", "capped", "m", 1], () => notThroughTheClient))
      expect(error._tag).toBe("SqlError")
    }))

  it.effect("under a tracer that exports, the statement goes through the client (which makes its sql.execute span)", () =>
    Effect.gen(function*() {
      const { db, prepared } = yield* counted
      const direct = make(db)
      const base = yield* Effect.tracer
      const tracer = Tracer.make({ span: (...args) => base.span(...args), context: base.context })
      const viaClient = Effect.succeed([{ via: "client" }])
      expect(yield* direct.run(INSERT, ["a1", "capped", "m", 1], () => viaClient).pipe(Effect.withTracer(tracer))).toEqual([
        { via: "client" }
      ])
      expect(prepared).toEqual([])
    }))
})
