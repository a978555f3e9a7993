import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import type { AttemptNote } from "@hookgate/core"
import * as Effect from "effect/Effect"
import type * as Context from "effect/Context"
import type { SqlAtomic } from "./atomic.js"
import { compiled, type DirectStatementsShape, runCompiledAtomically } from "./compiled.js"

type AttemptSlot = "attemptNo" | "outcome" | "errorClass" | "detail" | "startedAt"
const ATTEMPT_SLOTS: ReadonlyArray<AttemptSlot> = ["attemptNo", "outcome", "errorClass", "detail", "startedAt"]

/** A note's values for the attempt slots. */
const noteValues = (note: AttemptNote): Record<AttemptSlot, unknown> => ({
  attemptNo: note.number,
  outcome: note.outcome,
  errorClass: note.errorClass,
  detail: note.detail,
  startedAt: note.startedAt
})

/** What an attempt row holds besides its key and token; the CASTs: Postgres types a bare parameter in a SELECT list as text. */
const attemptSelect = (sql: SqlClient.SqlClient, $: Readonly<Record<"key" | "token" | "now" | AttemptSlot, string>>) =>
  sql`SELECT ${$.key}, ${$.token}, CAST(${$.attemptNo} AS INTEGER), ${$.outcome}, ${$.errorClass}, ${$.detail},
  CAST(${$.startedAt} AS BIGINT), CAST(${$.now} AS BIGINT)`

const INSERT_ATTEMPT = `INSERT INTO hookgate_attempts
  (order_key, lease_token, attempt, outcome, error_class, detail, started_at, recorded_at)`

/** A guarded write of an order (`complete`, `release`) with, optionally, its attempt's row in the same atomic step. */
export interface RecordedStep<Name extends string, A> {
  /** The write alone, or with the attempt's row: one statement on Postgres, one atomic pair elsewhere. */
  readonly run: (values: Readonly<Record<Name, unknown>>, note: AttemptNote | undefined) => Effect.Effect<ReadonlyArray<A>, SqlError>
  /** The same as statements for a larger `SqlAtomic` step, and which one's rows are the write's. */
  readonly statements: (values: Readonly<Record<Name, unknown>>, note: AttemptNote | undefined) => {
    readonly statements: ReadonlyArray<Statement.Statement<Record<string, unknown>>>
    readonly writeAt: number
  }
}

/**
 * A guarded order write (`WHERE order_key = :key AND lease_token = :token … RETURNING`) that
 * also keeps the attempt's row, only if the write applies. Postgres: one statement, the
 * insert reading the update's RETURNING rows (`WITH u AS (UPDATE …) , a AS (INSERT … FROM u)`),
 * so no round trip is added. SQLite and D1 (whose UPDATE cannot sit in a WITH): the insert
 * under the write's own guard, then the write, as one atomic step (one driver transaction on
 * SQLite, one D1 batch): both see the same row, so both apply or neither does.
 */
export const recordedStep = <const Name extends string, A extends object>(
  sql: SqlClient.SqlClient,
  direct: DirectStatementsShape,
  atomic: Context.Tag.Service<SqlAtomic>,
  names: ReadonlyArray<Name>,
  write: (slot: Readonly<Record<Name, string>>) => Statement.Statement<unknown>
): RecordedStep<Name, A> => {
  const alone = compiled<Name, A>(sql, direct, names, write)
  const slots = [...names, ...ATTEMPT_SLOTS] as ReadonlyArray<Name | AttemptSlot>
  return sql.onDialectOrElse({
    pg: (): RecordedStep<Name, A> => {
      const both = compiled<Name | AttemptSlot, A>(sql, direct, slots, ($) =>
        sql`WITH u AS (${write($)}),
a AS (${sql.literal(INSERT_ATTEMPT)} ${attemptSelect(sql, $ as never)} FROM u ON CONFLICT DO NOTHING)
SELECT * FROM u`)
      return {
        run: (values, note) => (note === undefined ? alone.run(values) : both.run({ ...values, ...noteValues(note) })),
        statements: (values, note) => ({
          statements: [
            (note === undefined ? alone.statement(values) : both.statement({ ...values, ...noteValues(note) })) as Statement.Statement<
              Record<string, unknown>
            >
          ],
          writeAt: 0
        })
      }
    },
    orElse: (): RecordedStep<Name, A> => {
      const insert = compiled(sql, direct, ["key", "token", "now", ...ATTEMPT_SLOTS], ($) =>
        sql`${sql.literal(INSERT_ATTEMPT)} ${attemptSelect(sql, $)}
WHERE EXISTS (SELECT 1 FROM hookgate_orders WHERE order_key = ${$.key} AND lease_token = ${$.token})
ON CONFLICT DO NOTHING`)
      // The write's own key, token and time (every guarded order write has the three slots).
      const insertValues = (values: Readonly<Record<Name, unknown>>, note: AttemptNote) => {
        const { key, now, token } = values as Readonly<Record<string, unknown>>
        return { key, token, now, ...noteValues(note) }
      }
      return {
        run: (values, note) =>
          note === undefined
            ? alone.run(values)
            : Effect.map(
              runCompiledAtomically(sql, direct, atomic.run, [insert.call(insertValues(values, note)), alone.call(values)]),
              (results) => (results[1] ?? []) as ReadonlyArray<A>
            ),
        statements: (values, note) =>
          note === undefined
            ? { statements: [alone.statement(values) as Statement.Statement<Record<string, unknown>>], writeAt: 0 }
            : {
              statements: [
                insert.statement(insertValues(values, note)) as Statement.Statement<Record<string, unknown>>,
                alone.statement(values) as Statement.Statement<Record<string, unknown>>
              ],
              writeAt: 1
            }
      }
    }
  })
}

/** The row of an attempt whose sender found its lease taken over (`noteLeaseLost`), once per token. */
export const insertLostAttempt = (
  sql: SqlClient.SqlClient,
  key: string,
  lost: { readonly token: string; readonly now: number; readonly attempt: AttemptNote }
) =>
  sql`${sql.literal(INSERT_ATTEMPT)} VALUES (${key}, ${lost.token}, ${lost.attempt.number}, ${lost.attempt.outcome},
  ${lost.attempt.errorClass}, ${lost.attempt.detail}, ${lost.attempt.startedAt}, ${lost.now})
ON CONFLICT DO NOTHING`
