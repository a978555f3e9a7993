import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { OrderStore } from "@hookgate/core"
import { newOrder } from "@hookgate/core/testing"
import { SqliteStore } from "@hookgate/store-sqlite"
import { Deferred, Effect, Exit, Fiber, Layer, Option, Tracer } from "effect"

// The store's compiled statements run on the driver directly only while nobody
// holds the connection: never inside another fiber's open transaction.

const store = () => SqliteStore.layer({ filename: ":memory:" })

describe("compiled statements on SQLite", () => {
  it.live("wait for a transaction that holds the connection, and land outside it", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const orders = yield* OrderStore
      const inside = yield* Deferred.make<void>()
      const finish = yield* Deferred.make<void>()
      // A transaction that writes a marker, then holds the connection until told, then rolls back.
      const transaction = yield* Effect.fork(sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO hookgate_alerts (alert_id, kind, order_key, message, created_at) VALUES ('marker', 'capped', NULL, 'm', 0)`
        yield* Deferred.succeed(inside, undefined)
        yield* Deferred.await(finish)
        return yield* Effect.fail("roll back")
      })))
      yield* Deferred.await(inside)

      const order = yield* newOrder("o1")
      const put = yield* Effect.fork(orders.put(order, { now: 1, until: 2 }))
      yield* Effect.sleep("50 millis")
      expect(Option.isNone(yield* Fiber.poll(put)), "the insert waited for the transaction").toBe(true)

      yield* Deferred.succeed(finish, undefined)
      expect(Exit.isFailure(yield* Fiber.await(transaction))).toBe(true)
      expect((yield* Fiber.join(put))._tag).toBe("Stored")
      // The order survived the rollback; the transaction's own write did not.
      expect(Option.isSome(yield* orders.get(order.key))).toBe(true)
      expect(yield* sql`SELECT alert_id FROM hookgate_alerts`).toEqual([])
    }).pipe(Effect.provide(store())))

  it.effect("go through the client, one sql.execute span each, when a tracer is installed", () =>
    Effect.gen(function*() {
      const names: Array<string> = []
      const tracer = Layer.unwrapEffect(Effect.map(Effect.tracer, (base) =>
        Layer.setTracer(Tracer.make({
          span: (name, ...rest) => {
            names.push(name)
            return base.span(name, ...rest)
          },
          context: base.context
        }))))
      yield* Effect.gen(function*() {
        const orders = yield* OrderStore
        const before = names.length
        expect((yield* orders.put(yield* newOrder("o2"), { now: 1, until: 2 }))._tag).toBe("Stored")
        expect(names.slice(before)).toEqual(["sql.execute"])
      }).pipe(Effect.provide(Layer.merge(store(), tracer)))
    }))
})
