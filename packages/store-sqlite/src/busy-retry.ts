import * as Reactivity from "@effect/experimental/Reactivity"
import type * as Connection from "@effect/sql/SqlConnection"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Statement from "@effect/sql/Statement"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Duration, Effect, Layer, Schedule } from "effect"

/**
 * better-sqlite3 is synchronous: while SQLite's busy handler waits for another
 * process's write lock, the whole event loop waits with it (a 5 s busy timeout
 * froze every request, `/healthz` included). So the driver's own wait is a few
 * milliseconds (`DRIVER_BUSY_TIMEOUT_MS`) and the real waiting happens here, in
 * an Effect `Schedule` that sleeps between attempts without blocking anything,
 * for at most the caller's budget. Transactions begin `IMMEDIATE`, so they take
 * the write lock at `BEGIN` (retried like any statement) and no statement
 * inside them meets a lock held by another process.
 */

/** How long one statement may block the event loop on another process's lock. */
export const DRIVER_BUSY_TIMEOUT_MS = 5

/** SQLITE_BUSY and its extended codes (SQLITE_BUSY_SNAPSHOT, …). */
export const isBusy = (error: SqlError): boolean => {
  const code = (error.cause as { code?: unknown } | undefined)?.code
  return typeof code === "string" && code.startsWith("SQLITE_BUSY")
}

/** Retries while busy: 5 ms doubling to 100 ms apart, jittered, for at most `budget` in all. */
export const busySchedule = (budget: Duration.DurationInput) =>
  Schedule.exponential("5 millis", 2).pipe(
    Schedule.union(Schedule.spaced("100 millis")),
    Schedule.jittered,
    Schedule.upTo(budget)
  )

/**
 * Retries while busy. A statement that succeeds at once (nearly all) costs one
 * `catchIf`; the retry loop starts only after a busy answer, trying once more
 * at once (the driver itself just waited `DRIVER_BUSY_TIMEOUT_MS`) and then on the schedule.
 */
const retryBusy = (budget: Duration.DurationInput) => {
  const schedule = busySchedule(budget)
  return <A, R>(effect: Effect.Effect<A, SqlError, R>) =>
    Effect.catchIf(effect, isBusy, () => Effect.retry(effect, { schedule, while: isBusy }))
}

const withBusyRetry = (connection: Connection.Connection, budget: Duration.DurationInput): Connection.Connection => {
  const retry = retryBusy(budget)
  return {
    ...connection,
    execute: (sql, params, transformRows) => retry(connection.execute(sql, params, transformRows)),
    executeRaw: (sql, params) => retry(connection.executeRaw(sql, params)),
    executeValues: (sql, params) => retry(connection.executeValues(sql, params)),
    executeUnprepared: (sql, params, transformRows) => retry(connection.executeUnprepared(sql, params, transformRows))
  }
}

/**
 * A `SqlClient` over `@effect/sql-sqlite-node`'s connection whose statements
 * retry SQLITE_BUSY on a Schedule (see above), with `BEGIN IMMEDIATE` transactions.
 */
export const layerBusyRetryingClient = (options: { readonly filename: string; readonly busyBudget: Duration.DurationInput }) =>
  Layer.scoped(
    SqlClient.SqlClient,
    Effect.gen(function*() {
      const sqlite = yield* SqliteClient.make({ filename: options.filename })
      // `reserve` holds the driver's one connection (behind its semaphore) until the scope closes;
      // it is always the same connection, so it is wrapped once.
      const wrapped = new WeakMap<Connection.Connection, Connection.Connection>()
      const acquire = Effect.map(sqlite.reserve, (connection) => {
        let retrying = wrapped.get(connection)
        if (retrying === undefined) wrapped.set(connection, retrying = withBusyRetry(connection, options.busyBudget))
        return retrying
      })
      const client = yield* SqlClient.make({
        acquirer: acquire,
        transactionAcquirer: acquire,
        compiler: Statement.makeCompilerSqlite(),
        beginTransaction: "BEGIN IMMEDIATE",
        spanAttributes: [["db.system.name", "sqlite"]]
      })
      yield* client.unsafe(`PRAGMA busy_timeout = ${DRIVER_BUSY_TIMEOUT_MS}`)
      return client
    })
  ).pipe(Layer.provide(Reactivity.layer))
