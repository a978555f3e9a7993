import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { tracingEnabled } from "@hookgate/core"
import type { SqlStore } from "@hookgate/store-sql"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { createHash } from "node:crypto"
import type Pg from "pg"

type Rows = ReadonlyArray<Record<string, unknown>>

// Postgres's answers that a named statement cannot be used as this process thinks:
// a table it reads changed shape under it (a newer release migrated), or a pooler in
// transaction mode shares server sessions (the statement is missing there, or already there).
const CACHED_PLAN_CHANGED = "0A000"
const NO_SUCH_STATEMENT = "26000"
const STATEMENT_EXISTS = "42P05"

/**
 * store-sql's compiled statements (the fixed few dozen the receive path and the sweep
 * run) straight on the `pg` pool as named prepared statements: each connection parses
 * and plans a text once, then every call is Bind and Execute in the same one round
 * trip, without `@effect/sql`'s per-statement machinery (a span, a scope, a statement
 * compiled again). The client still runs them inside a transaction (its connection
 * holds the statement), under a tracer that exports (which wants each `sql.execute`
 * span), and when Postgres refuses a named statement: after a table changed shape
 * (a newer release migrated) the texts get new names; behind a pooler that shares
 * server sessions, statements go unnamed for the pool's life. `prepare: false` names none.
 */
export const make = (pool: Pg.Pool, options: { readonly prepare: boolean }): SqlStore.DirectStatementsShape => {
  let prepare = options.prepare
  let generation = 0
  const names = new Map<string, string>()
  const nameOf = (text: string) => {
    let name = names.get(text)
    if (name === undefined) {
      // The same text gets the same name in every process (a pooler may mix their sessions).
      name = `hookgate_${createHash("sha256").update(text).digest("hex").slice(0, 24)}_${generation}`
      names.set(text, name)
    }
    return name
  }

  const query = (text: string, params: ReadonlyArray<unknown>, name: string | undefined) =>
    Effect.async<Rows, SqlError>((resume) => {
      let client: Pg.PoolClient | undefined
      let answered = false // resumed (or interrupted): nothing more is reported
      let released = false
      const release = (cause?: Error) => {
        if (released || client === undefined) return
        released = true
        client.off("error", onError)
        client.release(cause)
      }
      const answer = (effect: Effect.Effect<Rows, SqlError>) => {
        if (answered) return
        answered = true
        resume(effect)
      }
      // The connection broke: it leaves the pool.
      const onError = (cause: Error) => {
        release(cause)
        answer(Effect.fail(new SqlError({ cause, message: "Connection error" })))
      }
      pool.connect((cause, acquired) => {
        if (cause !== undefined || acquired === undefined) {
          return answer(Effect.fail(new SqlError({ cause: cause ?? new Error("No client returned"), message: "Failed to acquire connection" })))
        }
        client = acquired
        if (answered) return release() // interrupted while waiting for the connection
        client.on("error", onError)
        client.query({ name, text, values: params as Array<unknown> }, (error: Error | null, result: Pg.QueryResult) => {
          release()
          answer(error ? Effect.fail(new SqlError({ cause: error, message: "Failed to execute statement" })) : Effect.succeed(result.rows))
        })
      })
      // Interrupted: as `@effect/sql-pg` does, ask Postgres to cancel the running statement
      // (best effort); the connection returns to the pool once the statement answers.
      return Effect.sync(() => {
        if (answered) return
        answered = true
        const processId = (client as { processID?: number } | undefined)?.processID
        if (processId !== undefined && !released && !pool.ending) pool.query(`SELECT pg_cancel_backend(${processId})`, () => {})
      })
    })

  const refusedName = (error: SqlError) => {
    const code = (error.cause as { code?: unknown } | undefined)?.code
    if (code === CACHED_PLAN_CHANGED) {
      generation++
      names.clear()
      return true
    }
    if (code === NO_SUCH_STATEMENT || code === STATEMENT_EXISTS) {
      prepare = false
      return true
    }
    return false
  }

  return {
    run: (text, params, viaClient) =>
      Effect.withFiberRuntime((fiber) => {
        if (tracingEnabled(fiber) || Context.getOption(fiber.currentContext, SqlClient.TransactionConnection)._tag === "Some") {
          return viaClient()
        }
        if (!prepare) return query(text, params, undefined)
        return Effect.catchIf(query(text, params, nameOf(text)), refusedName, () => viaClient())
      })
  }
}
