import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { Lease, OrderStore } from "@hookgate/core"
import { SendReceipt } from "@hookgate/core/mail"
import { newOrder } from "@hookgate/testing"
import { SqliteStore } from "@hookgate/store-sqlite"
import { Deferred, Effect, Exit, FastCheck as fc, Fiber, Layer, Option, Tracer } from "effect"

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
      const put = yield* Effect.fork(orders.put(order, { token: crypto.randomUUID(), now: 1, until: 2 }))
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
        expect((yield* orders.put(yield* newOrder("o2"), { token: crypto.randomUUID(), now: 1, until: 2 }))._tag).toBe("Stored")
        expect(names.slice(before)).toEqual(["sql.execute"])
      }).pipe(Effect.provide(Layer.merge(store(), tracer)))
    }))
})

// The direct path against the general one: the same operations on two fresh stores, one
// running the compiled statements on the driver, one through @effect/sql's client (a
// tracer installed forces it), answer the same at every step and leave the same rows.
type Op =
  | { readonly op: "put"; readonly id: string }
  | { readonly op: "acquire"; readonly id: string; readonly dueOnly: boolean }
  | { readonly op: "complete"; readonly id: string; readonly honours: boolean; readonly note: boolean }
  | {
    readonly op: "release"
    readonly id: string
    readonly status: "pending" | "failed" | "capped"
    readonly uncertain: boolean
    readonly note: boolean
  }
  | { readonly op: "due" }
  | { readonly op: "tick"; readonly by: number }

const ids = fc.constantFrom("a", "b", "c")
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant("put" as const), id: ids }),
  fc.record({ op: fc.constant("acquire" as const), id: ids, dueOnly: fc.boolean() }),
  fc.record({ op: fc.constant("complete" as const), id: ids, honours: fc.boolean(), note: fc.boolean() }),
  fc.record({
    op: fc.constant("release" as const),
    id: ids,
    status: fc.constantFrom("pending" as const, "failed" as const, "capped" as const),
    uncertain: fc.boolean(),
    note: fc.boolean()
  }),
  fc.constant({ op: "due" as const }),
  fc.record({ op: fc.constant("tick" as const), by: fc.constantFrom(1, 1_000, 60_000) })
)

const clientOnly = Layer.unwrapEffect(Effect.map(Effect.tracer, (base) => Layer.setTracer(Tracer.make({ span: base.span, context: base.context }))))

/** Runs `ops` on a fresh store, with deterministic tokens (`t<step>`), answering every step's result and the final rows. */
const runOps = (ops: ReadonlyArray<Op>, viaClient: boolean) =>
  Effect.gen(function*() {
    const orders = yield* OrderStore
    const lease = yield* Lease
    const sql = yield* SqlClient.SqlClient
    const tokens = new Map<string, string>()
    let now = 1_000
    const answers: Array<unknown> = []
    for (const [i, op] of ops.entries()) {
      const token = `t${i}`
      switch (op.op) {
        case "put": {
          const put = yield* orders.put(yield* newOrder(op.id), { token, now, until: now + 30_000 })
          if (put._tag === "Stored") tokens.set(op.id, token)
          answers.push(put)
          break
        }
        case "acquire": {
          const leased = yield* lease.acquire(`test:${op.id}`, { token, now, until: now + 30_000, maxAttempts: 3, dueOnly: op.dueOnly })
          if (Option.isSome(leased)) tokens.set(op.id, token)
          answers.push(leased)
          break
        }
        case "complete":
          answers.push(
            yield* lease.complete(`test:${op.id}`, tokens.get(op.id) ?? "none", new SendReceipt({ mailer: "m", messageId: `m${i}`, acceptedAt: now }), {
              now,
              mailerHonoursKeys: op.honours,
              // The attempt's row: kept by the write itself (on SQLite, migration 0012's trigger).
              attempt: op.note ? { number: i, startedAt: now - 1, outcome: "sent", errorClass: null, detail: `m${i}` } : undefined
            })
          )
          break
        case "release":
          answers.push(
            yield* lease.release(`test:${op.id}`, tokens.get(op.id) ?? "none", {
              now,
              error: `e${i}`,
              attempts: i % 3,
              status: op.status,
              nextAttemptAt: now + 10,
              uncertain: op.uncertain,
              alert: Option.none(),
              attempt: op.note ? { number: i, startedAt: now - 1, outcome: "retry", errorClass: "Transient", detail: `e${i}` } : undefined
            })
          )
          break
        case "due":
          answers.push(yield* orders.due(now, { limit: 10, maxAttempts: 3 }))
          break
        case "tick":
          now += op.by
          break
      }
    }
    const rows = yield* sql`SELECT * FROM hookgate_orders ORDER BY order_key`
    const attempts = yield* sql`SELECT * FROM hookgate_attempts ORDER BY order_key, lease_token`
    return { answers, rows, attempts }
  }).pipe(Effect.provide(viaClient ? Layer.merge(store(), clientOnly) : store()))

describe("compiled statements on the driver against the client (property)", () => {
  it("answer the same and leave the same rows for any sequence of store operations", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 12 }), async (ops) => {
        const direct = await Effect.runPromise(runOps(ops, false))
        const client = await Effect.runPromise(runOps(ops, true))
        expect(direct).toEqual(client)
      }),
      { numRuns: 150, seed: 20261202 }
    )
  })
})
