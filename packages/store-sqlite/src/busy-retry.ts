import * as Reactivity from "@effect/experimental/Reactivity"
import type * as Connection from "@effect/sql/SqlConnection"
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
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

const retryBusy = (budget: Duration.DurationInput) => <A, R>(effect: Effect.Effect<A, SqlError, R>) =>
  Effect.retry(effect, { schedule: busySchedule(budget), while: isBusy })

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

/** The database file (or its folder) cannot be opened or created: a typed error naming the file, never a stack trace. */
export const cannotOpen = (filename: string, cause: unknown) =>
  new SqlError({
    cause,
    message: `cannot open the SQLite database ${filename}: ${cause instanceof Error ? cause.message : String(cause)}`
  })

/**
 * A `SqlClient` over `@effect/sql-sqlite-node`'s connection whose statements
 * retry SQLITE_BUSY on a Schedule (see above), with `BEGIN IMMEDIATE` transactions.
 */
export const layerBusyRetryingClient = (options: { readonly filename: string; readonly busyBudget: Duration.DurationInput }) =>
  Layer.scoped(
    SqlClient.SqlClient,
    Effect.gen(function*() {
      // better-sqlite3 throws from its constructor (a defect in @effect/sql-sqlite-node): make it a typed failure.
      const sqlite = yield* SqliteClient.make({ filename: options.filename }).pipe(
        Effect.catchAllDefect((defect) => Effect.fail(cannotOpen(options.filename, defect)))
      )
      // `reserve` holds the driver's one connection (behind its semaphore) until the scope closes.
      const acquire = Effect.map(sqlite.reserve, (connection) => withBusyRetry(connection, options.busyBudget))
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
