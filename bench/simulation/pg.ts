import { PgStore } from "@hookgate/store-pg"
import { PgTestServer } from "@hookgate/store-pg/testing"
import { Redacted } from "effect"
import Pg from "pg"
import { RealIo } from "./real-io.js"

/**
 * Postgres for the simulation: one throwaway server per thread (store-pg's
 * `PgTestServer`: initdb as an unprivileged user, no fsync), a fresh database
 * per shard, and `pg` instrumented so that the calls PgStore's pool makes from
 * inside a world are tracked by that world's `RealIo` (`RealIo.active`):
 * PgStore builds its pool itself, so the hook is on `pg`'s prototypes.
 */

let server: Promise<PgTestServer> | undefined
/** Connections that are not the world's: the check for blocked statements. */
const untracked = new WeakSet<object>()
/** The pools the running world's store opened, for their queues of waiting connects. */
const pools = new Set<Pg.Pool>()

type Callback = (...args: Array<any>) => unknown

const instrument = () => {
  const client = Pg.Client.prototype as unknown as { query: (this: object, ...args: Array<any>) => unknown }
  const pool = Pg.Pool.prototype as unknown as {
    connect: (this: Pg.Pool, callback?: Callback) => unknown
    end: (this: Pg.Pool, callback?: Callback) => unknown
  }
  const query = client.query
  client.query = function(this: object, config: any, values?: any, callback?: any) {
    const io = RealIo.active
    if (io === undefined || untracked.has(this) || typeof config?.submit === "function") return query.call(this, config, values, callback)
    if (typeof values === "function") return query.call(this, config, io.callback(values))
    if (typeof callback === "function") return query.call(this, config, values, io.callback(callback))
    return io.promise(() => query.call(this, config, values) as Promise<unknown>)
  }
  for (const method of ["connect", "end"] as const) {
    const original = pool[method]
    pool[method] = function(this: Pg.Pool, callback?: Callback) {
      const io = RealIo.active
      if (io === undefined) return original.call(this, callback)
      pools.add(this)
      return typeof callback === "function"
        ? original.call(this, io.callback(callback))
        : io.promise(() => original.call(this) as Promise<unknown>)
    }
  }
}
instrument()

/** This thread's Postgres server, started on first use. */
const pgServer = () => (server ??= PgTestServer.start({ maxConnections: 100 }))

/** A fresh, empty database: its URL, and how to drop it. */
export const freshPg = async () => {
  const current = await pgServer()
  const url = await current.createDatabase("sim")
  const name = new URL(url).pathname.slice(1)
  return {
    url,
    name,
    drop: () => current.admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined)
  }
}

/**
 * A world on database `name`: its calls are blocked when each one in flight is a
 * statement waiting on a lock (held by a transaction of another simulated fiber,
 * which must run to release it) or a connect waiting for a pooled connection.
 */
export const pgWorldIo = async (name: string): Promise<{ readonly io: RealIo; readonly close: () => Promise<void> }> => {
  const current = await pgServer()
  const admin = new Pg.Client({ connectionString: current.url() })
  untracked.add(admin)
  await admin.connect()
  pools.clear()
  const io = new RealIo({
    blocked: async (inFlight) => {
      const waiting = [...pools].reduce((n, pool) => n + pool.waitingCount, 0)
      const { rows } = await admin.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND wait_event_type = 'Lock'",
        [name]
      )
      return rows[0]!.n + waiting >= inFlight
    }
  })
  return { io, close: () => admin.end() }
}

/** The Postgres store on the database at `url` (PgStore's own pool: 10 connections). */
export const pgStoreLayer = (url: string) => PgStore.layer({ url: Redacted.make(url) })

/** Stops this thread's Postgres server, if one runs. */
export const dispose = async () => {
  const started = server
  server = undefined
  if (started !== undefined) await (await started).dispose()
}
