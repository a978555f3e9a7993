import { tracingEnabled } from "@hookgate/core"
import { SqlError } from "@effect/sql/SqlError"
import { SqlStore } from "@hookgate/store-sql"
import * as Effect from "effect/Effect"
import type { D1Database } from "./database.js"

type D1Statement = ReturnType<D1Database["prepare"]>


/**
 * store-sql's compiled statements run on the D1 binding itself: prepared once per
 * text (the store's are a fixed few dozen) and bound per call, answering the rows
 * as `@effect/sql-d1` does (`all()`), without the client's per-statement machinery
 * (a span, a scope, a statement compiled again, a cache lookup). With a tracer that
 * exports (which wants each `sql.execute` span), or a text D1 refuses to prepare,
 * a statement goes through the client as before. D1 has no interactive
 * transactions: there is no connection to hold, so the binding is always free.
 */
export const make = (db: D1Database): SqlStore.DirectStatementsShape => {
  const prepared = new Map<string, D1Statement>()
  return {
    run: (sql, params, viaClient) =>
      Effect.withFiberRuntime((fiber) => {
        if (tracingEnabled(fiber)) return viaClient()
        let statement = prepared.get(sql)
        if (statement === undefined) {
          try {
            statement = db.prepare(sql)
          } catch {
            return viaClient() // the client reports it as it reports any statement it cannot prepare
          }
          prepared.set(sql, statement)
        }
        const bound = statement
        return Effect.tryPromise({
          try: async () => {
            const response = await bound.bind(...params).all<Record<string, unknown>>()
            if (response.error) throw response.error
            return response.results ?? []
          },
          catch: (cause) => new SqlError({ cause, message: "Failed to execute statement" })
        })
      })
  }
}
