import * as Reactivity from "@effect/experimental/Reactivity"
import type * as Connection from "@effect/sql/SqlConnection"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Statement from "@effect/sql/Statement"
import { SqlStore } from "@hookgate/store-sql"
import { Context, Duration, Effect, Layer, Schedule } from "effect"
import { isBusyCause, makeSqliteConnection } from "./connection.js"

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
export const isBusy = (error: SqlError): boolean => isBusyCause(error.cause)

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
 * A `SqlClient` over the store's own better-sqlite3 connection (`connection.ts`)
 * whose statements retry SQLITE_BUSY on a Schedule (see above), with `BEGIN
 * IMMEDIATE` transactions; and the `DirectStatements` that run the store's
 * compiled statements on that connection directly when nothing holds it.
 */
export const layerBusyRetryingClient = (options: { readonly filename: string; readonly busyBudget: Duration.DurationInput }) =>
  Layer.scopedContext(
    Effect.gen(function*() {
      const sqlite = yield* makeSqliteConnection(options.filename, DRIVER_BUSY_TIMEOUT_MS, Duration.toMillis(options.busyBudget))
      const acquire = Effect.as(sqlite.reserve, withBusyRetry(sqlite.connection, options.busyBudget))
      const client = yield* SqlClient.make({
        acquirer: acquire,
        transactionAcquirer: acquire,
        compiler: Statement.makeCompilerSqlite(),
        beginTransaction: "BEGIN IMMEDIATE",
        spanAttributes: [["db.system.name", "sqlite"]]
      })
      return Context.make(SqlClient.SqlClient, client).pipe(Context.add(SqlStore.DirectStatements, sqlite.direct))
    })
  ).pipe(Layer.provide(Reactivity.layer))
