import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/**
 * Runs statements that must stand or fall together and answers each one's rows.
 * On SQLite and Postgres that is a transaction; D1 has no interactive
 * transactions, so store-d1 provides one D1 `batch()` instead.
 */
export class SqlAtomic extends Context.Tag("@hookgate/store-sql/SqlAtomic")<SqlAtomic, {
  readonly run: (
    statements: ReadonlyArray<Statement.Statement<Record<string, unknown>>>
  ) => Effect.Effect<ReadonlyArray<ReadonlyArray<Record<string, unknown>>>, SqlError>
}>() {
  /** As one `SqlClient` transaction (SQLite, Postgres). */
  static layerTransaction(): Layer.Layer<SqlAtomic, never, SqlClient.SqlClient> {
    return Layer.effect(
      SqlAtomic,
      Effect.map(SqlClient.SqlClient, (sql) => ({
        run: (statements) => sql.withTransaction(Effect.forEach(statements, (statement) => statement))
      }))
    )
  }
}
