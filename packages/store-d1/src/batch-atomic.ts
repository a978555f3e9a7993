import { spanWhenTraced } from "@hookgate/core"
import { SqlError } from "@effect/sql/SqlError"
import { D1Client } from "@effect/sql-d1/D1Client"
import { SqlStore } from "@hookgate/store-sql"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/**
 * `SqlAtomic` on D1: the statements go to D1 as ONE `batch()`, which D1 runs in
 * order as a single transaction (D1 has no BEGIN and no interactive
 * transactions). Each statement is compiled by its own @effect/sql compiler and
 * bound on the raw binding; the answer is each statement's rows, in order.
 */
export const layerBatchAtomic = (): Layer.Layer<SqlStore.SqlAtomic, never, D1Client> =>
  Layer.effect(SqlStore.SqlAtomic, Effect.map(D1Client, batchAtomic))

/** `SqlAtomic` as one D1 `batch()` on the client's binding (what `layerBatchAtomic` provides). */
export const batchAtomic = (client: D1Client): Context.Tag.Service<SqlStore.SqlAtomic> => {
  const db = client.config.db
  return {
    run: (statements) =>
      Effect.try({
        try: () =>
          statements.map((statement) => {
            const [sql, params] = statement.compile()
            return db.prepare(sql).bind(...params)
          }),
        catch: (cause) => new SqlError({ cause, message: "Failed to prepare a D1 batch" })
      }).pipe(
        Effect.flatMap((prepared) =>
          Effect.tryPromise({
            try: () => db.batch<Record<string, unknown>>(prepared),
            catch: (cause) => new SqlError({ cause, message: "Failed to execute a D1 batch" })
          })
        ),
        Effect.map((results) => results.map((result) => result.results ?? [])),
        spanWhenTraced("d1.batch", { statements: statements.length })
      )
  }
}
