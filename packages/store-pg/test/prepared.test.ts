import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { OrderStore } from "@hookgate/core"
import { PgStore } from "@hookgate/store-pg"
import { newOrder } from "@hookgate/testing"
import { Effect, Exit, Option, Redacted } from "effect"
import Pg from "pg"
import { usePgServer } from "./support.js"

const pg = usePgServer()
const T0 = 1_700_000_000_000

// One connection: what the store prepared is what `pg_prepared_statements` shows to the next statement.
const oneConnection = (prepare?: boolean, maxConnections = 1) =>
  Effect.flatMap(Effect.promise(() => pg.server().createDatabase("prepared")), (url) =>
    Effect.succeed({ url, layer: PgStore.layer({ url: Redacted.make(url), maxConnections, ...(prepare === undefined ? {} : { prepare }) }) }))

const prepared = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ name: string; statement: string }>`SELECT name, statement FROM pg_prepared_statements ORDER BY name`)

const admin = (url: string, statement: string) =>
  Effect.promise(async () => {
    const client = new Pg.Client({ connectionString: url })
    await client.connect()
    try {
      await client.query(statement)
    } finally {
      await client.end()
    }
  })

describe("PgStore's own statements", () => {
  it.effect("run as named prepared statements, parsed once per connection", () =>
    Effect.gen(function*() {
      const { layer } = yield* oneConnection()
      yield* Effect.gen(function*() {
        const store = yield* OrderStore
        for (const id of ["p1", "p2", "p3"]) {
          expect((yield* store.put(yield* newOrder(id), { token: crypto.randomUUID(), now: T0, until: T0 + 1_000 }))._tag).toBe("Stored")
        }
        const names = (yield* prepared).filter((row) => row.statement.includes("INSERT INTO hookgate_orders"))
        expect(names).toHaveLength(1)
        expect(names[0]!.name).toMatch(/^hookgate_[0-9a-f]{24}_0$/)
      }).pipe(Effect.provide(layer))
    }))

  it.effect("with prepare: false, none is named", () =>
    Effect.gen(function*() {
      const { layer } = yield* oneConnection(false)
      yield* Effect.gen(function*() {
        const store = yield* OrderStore
        yield* store.put(yield* newOrder("u1"), { token: crypto.randomUUID(), now: T0, until: T0 + 1_000 })
        expect(yield* prepared).toEqual([])
      }).pipe(Effect.provide(layer))
    }))

  it.effect("a table that changed shape under a prepared statement (a newer release migrated) is read again under a new name", () =>
    Effect.gen(function*() {
      const { layer, url } = yield* oneConnection()
      yield* Effect.gen(function*() {
        const store = yield* OrderStore
        yield* store.put(yield* newOrder("s1"), { token: crypto.randomUUID(), now: T0, until: T0 + 1_000 })
        expect(Option.isSome(yield* store.get("test:s1"))).toBe(true) // `SELECT *` prepared
        yield* admin(url, "ALTER TABLE hookgate_orders ADD COLUMN added_by_a_newer_release text")
        // Postgres refuses the cached plan ("cached plan must not change result type"): answered anyway.
        expect(Option.isSome(yield* store.get("test:s1"))).toBe(true)
        expect(Option.isSome(yield* store.get("test:s1"))).toBe(true)
        const names = (yield* prepared).filter((row) => row.statement.startsWith("SELECT * FROM hookgate_orders")).map((row) => row.name)
        expect(names.some((name) => name.endsWith("_1"))).toBe(true)
      }).pipe(Effect.provide(layer))
    }))

  it.effect("a session that lost its prepared statements (a pooler switched it) is answered, and the store stops naming them", () =>
    Effect.gen(function*() {
      const { layer } = yield* oneConnection()
      yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const store = yield* OrderStore
        yield* store.put(yield* newOrder("d1"), { token: crypto.randomUUID(), now: T0, until: T0 + 1_000 })
        yield* sql`DEALLOCATE ALL`
        // `pg` still thinks the INSERT is prepared: Postgres answers 26000, the store runs it unnamed.
        expect((yield* store.put(yield* newOrder("d2"), { token: crypto.randomUUID(), now: T0, until: T0 + 1_000 }))._tag).toBe("Stored")
        expect((yield* store.put(yield* newOrder("d3"), { token: crypto.randomUUID(), now: T0, until: T0 + 1_000 }))._tag).toBe("Stored")
        expect(yield* prepared).toEqual([])
      }).pipe(Effect.provide(layer))
    }))

  it.effect("inside a transaction they run on the transaction's connection, and roll back with it", () =>
    Effect.gen(function*() {
      // Two connections: a statement that left the transaction would find a free one and commit alone.
      const { layer } = yield* oneConnection(undefined, 2)
      yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const store = yield* OrderStore
        const order = yield* newOrder("t1")
        const exit = yield* Effect.exit(sql.withTransaction(Effect.gen(function*() {
          expect((yield* store.put(order, { token: crypto.randomUUID(), now: T0, until: T0 + 1_000 }))._tag).toBe("Stored")
          return yield* Effect.fail("abandon")
        })))
        expect(exit).toEqual(Exit.fail("abandon"))
        expect(Option.isNone(yield* store.get("test:t1"))).toBe(true)
      }).pipe(Effect.provide(layer))
    }))
})
