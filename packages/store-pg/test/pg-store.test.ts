import { SchemaTooNew, SqlStore } from "@hookgate/store-sql"
import { describe, expect, it } from "@effect/vitest"
import { Lease, OrderStore } from "@hookgate/core"
import { newOrder } from "@hookgate/testing"
import { PgStore } from "@hookgate/store-pg"
import { Cause, ConfigProvider, Context, Effect, Exit, Layer, Redacted } from "effect"
import Pg from "pg"
import { usePgServer } from "./support.js"

const pg = usePgServer()
const SECRET = "pw-never-shown-4f1c"

describe("PgStore", () => {
  it.effect("a server that cannot be reached fails the layer with PgConnectionError naming host, port and database, never the password", () =>
    Effect.gen(function*() {
      // Port 1: nothing listens there.
      const url = Redacted.make(`postgres://hookgate:${SECRET}@127.0.0.1:1/orders`)
      const exit = yield* Effect.exit(Effect.scoped(Layer.build(PgStore.layer({ url, connectTimeout: "2 seconds" }))))
      expect(Exit.isFailure(exit)).toBe(true)
      const error = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
      expect(error).toMatchObject({ _tag: "PgConnectionError", target: "127.0.0.1:1/orders" })
      const shown = [String(error), Exit.isFailure(exit) ? Cause.pretty(exit.cause) : "", JSON.stringify(error)].join("\n")
      expect(shown).toContain("127.0.0.1:1/orders")
      expect(shown).not.toContain(SECRET)
    }))

  it.effect("processes starting together on a fresh database migrate it once, without failing", () =>
    Effect.gen(function*() {
      const url = Redacted.make(yield* Effect.promise(() => pg.server().createDatabase("race")))
      yield* Effect.all(
        Array.from({ length: 6 }, () => Effect.scoped(Layer.build(PgStore.layer({ url, maxConnections: 2 })))),
        { concurrency: "unbounded" }
      )
      const rows = yield* Effect.promise(async () => {
        const client = new Pg.Client({ connectionString: Redacted.value(url) })
        await client.connect()
        try {
          return (await client.query("SELECT migration_id FROM hookgate_migrations ORDER BY migration_id")).rows
        } finally {
          await client.end()
        }
      })
      expect(rows.map((r) => r.migration_id)).toEqual(SqlStore.migrations.map((m) => m.id))
    }))

  it.effect("make builds the store services as an Effect: a Context, the pool closed with the scope", () =>
    Effect.gen(function*() {
      const url = Redacted.make(yield* Effect.promise(() => pg.server().createDatabase("make")))
      const stored = yield* Effect.scoped(Effect.gen(function*() {
        const services = yield* PgStore.make({ url, maxConnections: 2 })
        const T0 = 1_700_000_000_000
        return yield* Effect.flatMap(newOrder("made"), (order) =>
          Context.get(services, OrderStore).put(order, { token: crypto.randomUUID(), now: T0, until: T0 + 1_000 }))
      }))
      expect(stored._tag).toBe("Stored")
    }))

  it.effect("PgStoreConfig refuses a URL that is not postgres:// and a pool or timeout that is not positive, naming each, never the URL", () =>
    Effect.gen(function*() {
      const env = {
        HOOKGATE_DATABASE_URL: `mysql://hookgate:${SECRET}@db/orders`,
        HOOKGATE_DB_POOL_SIZE: "0",
        HOOKGATE_DB_STATEMENT_TIMEOUT: "0 seconds",
        HOOKGATE_DB_CONNECT_TIMEOUT: "0 seconds"
      }
      const error = yield* Effect.flip(PgStore.PgStoreConfig.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))))
      for (const name of Object.keys(env)) expect(String(error)).toContain(name)
      expect(String(error)).not.toContain(SECRET)
      const read = yield* PgStore.PgStoreConfig.pipe(
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["HOOKGATE_DATABASE_URL", "postgresql://db/orders"]])))
      )
      expect(read).toMatchObject({ maxConnections: PgStore.DEFAULT_MAX_CONNECTIONS })
    }))

  it.effect("a database whose schema is newer than this release knows is refused with SchemaTooNew, naming both versions", () =>
    Effect.gen(function*() {
      const url = yield* Effect.promise(() => pg.server().createDatabase("newer"))
      const build = Layer.build(PgStore.layer({ url: Redacted.make(url), maxConnections: 2 })).pipe(Effect.scoped, Effect.exit)
      expect(Exit.isSuccess(yield* build)).toBe(true)
      const newest = SqlStore.migrations[SqlStore.migrations.length - 1]!
      yield* Effect.promise(async () => {
        const client = new Pg.Client({ connectionString: url })
        await client.connect()
        try {
          await client.query("INSERT INTO hookgate_migrations (migration_id, name) VALUES ($1, $2)", [newest.id + 1, "from_a_newer_release"])
        } finally {
          await client.end()
        }
      })
      const exit = yield* build
      expect(Exit.isFailure(exit) && !Cause.isDie(exit.cause)).toBe(true)
      const error = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
      expect(error).toBeInstanceOf(SchemaTooNew)
      expect((error as Error).message).toContain(`migration ${newest.id + 1} (from_a_newer_release)`)
      expect((error as Error).message).toMatch(/Upgrade hookgate .*or restore the backup/)
    }))

  it.effect("a statement that outlives the statement timeout is cancelled by Postgres and reported as StoreUnavailable", () =>
    Effect.gen(function*() {
      const url = yield* Effect.promise(() => pg.server().createDatabase("timeout"))
      const T0 = 1_700_000_000_000
      yield* Effect.gen(function*() {
        const store = yield* OrderStore
        const lease = yield* Lease
        yield* store.put(yield* newOrder("slow"), { token: crypto.randomUUID(), now: T0, until: T0 + 1_000 })
        // Another connection holds the order's row lock, so the lease UPDATE waits on it.
        const blocker = yield* Effect.acquireRelease(
          Effect.promise(async () => {
            const client = new Pg.Client({ connectionString: url })
            await client.connect()
            await client.query("BEGIN")
            await client.query("SELECT order_key FROM hookgate_orders FOR UPDATE")
            return client
          }),
          (client) => Effect.promise(() => client.query("ROLLBACK").then(() => client.end()))
        )
        const started = Date.now()
        const error = yield* Effect.flip(lease.acquire("test:slow", { token: crypto.randomUUID(), now: T0 + 5_000, until: T0 + 10_000, maxAttempts: 8, dueOnly: false }))
        expect(error._tag).toBe("StoreUnavailable")
        // StoreUnavailable ← SqlError ← Postgres's "canceling statement due to statement timeout" (57014).
        expect(error.cause).toMatchObject({ _tag: "SqlError", cause: { code: "57014" } })
        expect(Date.now() - started).toBeLessThan(5_000)
        expect(blocker).toBeDefined()
      }).pipe(Effect.scoped, Effect.provide(PgStore.layer({ url: Redacted.make(url), statementTimeout: "300 millis" })))
    }))
})
