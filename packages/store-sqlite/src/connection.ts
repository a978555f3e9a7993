import { tracingEnabled } from "@hookgate/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Connection from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import type { SqlStore } from "@hookgate/store-sql"
import Sqlite from "better-sqlite3"
import { Context, Effect, Scope, Stream } from "effect"

/**
 * The store's one better-sqlite3 connection: WAL, prepared statements kept by
 * their text, and a reservation that holds the connection for a scope (a
 * transaction, or one statement through the `SqlClient`). better-sqlite3 is
 * synchronous, so while nobody holds a reservation a statement can run at once,
 * outside any transaction: `DirectStatements` does that for the store's compiled
 * statements, skipping the client's per-statement machinery (a span, a scope,
 * the semaphore, a cache lookup).
 */

const ROLLBACK = /^\s*ROLLBACK\s*;?\s*$/i

/** How many statement texts stay prepared; the store's own are a few dozen. */
const PREPARED_CAPACITY = 200

/** SQLITE_BUSY and its extended codes (SQLITE_BUSY_SNAPSHOT, …), as better-sqlite3 throws them. */
export const isBusyCause = (cause: unknown): boolean => {
  const code = (cause as { code?: unknown } | undefined)?.code
  return typeof code === "string" && code.startsWith("SQLITE_BUSY")
}


export interface SqliteConnection {
  readonly connection: Connection.Connection
  /** Holds the connection until the scope closes; statements through the client and transactions take it. */
  readonly reserve: Effect.Effect<Connection.Connection, never, Scope.Scope>
  /**
   * Runs compiled statements directly when nobody holds the connection and no
   * tracer wants the client's `sql.execute` span; otherwise, or when the file is
   * locked by another process (SQLITE_BUSY), through the client (which waits and retries).
   */
  readonly direct: SqlStore.DirectStatementsShape
}

/** The database file (or its folder) cannot be opened or created: a typed error naming the file, never a stack trace. */
export const cannotOpen = (filename: string, cause: unknown) =>
  new SqlError({
    cause,
    message: `cannot open the SQLite database ${filename}: ${cause instanceof Error ? cause.message : String(cause)}`
  })

/**
 * `busyTimeoutMs`: the driver's wait for a lock on each statement; `openTimeoutMs`: its wait
 * while the file is opened and switched to WAL, before anything else runs in this process.
 */
export const makeSqliteConnection = (filename: string, busyTimeoutMs: number, openTimeoutMs = 5000) =>
  Effect.gen(function*() {
    const db = yield* Effect.acquireRelease(
      Effect.try({
        try: () => {
          const db = new Sqlite(filename, { timeout: openTimeoutMs })
          try {
            db.pragma("journal_mode = WAL")
          } catch (error) {
            db.close()
            throw error
          }
          return db
        },
        catch: (cause) => cannotOpen(filename, cause)
      }),
      (db) => Effect.sync(() => db.close())
    )
    db.pragma(`busy_timeout = ${busyTimeoutMs}`)

    const prepared = new Map<string, Sqlite.Statement>()
    const prepare = (sql: string): Sqlite.Statement => {
      let statement = prepared.get(sql)
      if (statement === undefined) {
        statement = db.prepare(sql)
        if (prepared.size >= PREPARED_CAPACITY) prepared.delete(prepared.keys().next().value!)
        prepared.set(sql, statement)
      }
      return statement
    }
    // Throws as the driver does.
    const runNow = (statement: Sqlite.Statement, params: ReadonlyArray<unknown>, safeIntegers: boolean, raw: boolean): any => {
      statement.safeIntegers(safeIntegers)
      if (statement.reader) return statement.all(...params)
      const result = statement.run(...params)
      return raw ? result : []
    }
    const run = (sql: string, params: ReadonlyArray<unknown>, raw: boolean, prepareFresh = false) =>
      Effect.withFiberRuntime<any, SqlError>((fiber) => {
        let statement: Sqlite.Statement
        try {
          statement = prepareFresh ? db.prepare(sql) : prepare(sql)
        } catch (cause) {
          return Effect.fail(new SqlError({ cause, message: "Failed to prepare statement " }))
        }
        try {
          return Effect.succeed(runNow(statement, params, Context.get(fiber.currentContext, SqlClient.SafeIntegers), raw))
        } catch (cause) {
          return Effect.fail(new SqlError({ cause, message: "Failed to execute statement" }))
        }
      })

    const connection: Connection.Connection = {
      execute: (sql, params, transformRows) => {
        const rows = run(sql, params, false)
        return transformRows ? Effect.map(rows, transformRows) : rows
      },
      executeRaw: (sql, params) => run(sql, params, true),
      executeValues: (sql, params) =>
        Effect.try({
          try: () => {
            const statement = prepare(sql)
            if (!statement.reader) {
              statement.run(...params)
              return []
            }
            statement.raw(true)
            try {
              return statement.all(...params) as ReadonlyArray<ReadonlyArray<unknown>>
            } finally {
              statement.raw(false)
            }
          },
          catch: (cause) => new SqlError({ cause, message: "Failed to execute statement" })
        }),
      executeUnprepared: (sql, params, transformRows) => {
        // A BEGIN that failed (another process held the lock past the budget) left nothing to roll
        // back: @effect/sql rolls back anyway and makes SQLite's "no transaction is active" a defect.
        if (!db.inTransaction && ROLLBACK.test(sql)) return Effect.succeed([])
        const rows = run(sql, params ?? [], false, true)
        return transformRows ? Effect.map(rows, transformRows) : rows
      },
      executeStream: () => Stream.dieMessage("executeStream not implemented")
    }

    const semaphore = yield* Effect.makeSemaphore(1)
    let held = 0
    const reserve: Effect.Effect<Connection.Connection, never, Scope.Scope> = Effect.uninterruptibleMask((restore) =>
      Effect.zipRight(
        restore(semaphore.take(1)),
        Effect.flatMap(Effect.scope, (scope) => {
          held++
          return Effect.as(
            Scope.addFinalizer(scope, Effect.suspend(() => {
              held--
              return semaphore.release(1)
            })),
            connection
          )
        })
      )
    )

    const direct: SqlStore.DirectStatementsShape = {
      run: (sql, params, viaClient) =>
        Effect.withFiberRuntime((fiber) => {
          if (held > 0 || tracingEnabled(fiber)) return viaClient()
          let statement: Sqlite.Statement
          try {
            statement = prepare(sql)
          } catch {
            return viaClient() // the client reports it as it reports any statement it cannot prepare
          }
          try {
            return Effect.succeed(runNow(statement, params, Context.get(fiber.currentContext, SqlClient.SafeIntegers), false))
          } catch (cause) {
            return isBusyCause(cause) ? viaClient() : Effect.fail(new SqlError({ cause, message: "Failed to execute statement" }))
          }
        })
    }

    return { connection, reserve, direct } satisfies SqliteConnection
  })
