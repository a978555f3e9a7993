import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import type { AttemptNote } from "@hookgate/core"
import type * as Effect from "effect/Effect"
import { compiled, type DirectStatementsShape } from "./compiled.js"

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
  /** The write alone, or with the attempt's row: one statement either way. */
  readonly run: (values: Readonly<Record<Name, unknown>>, note: AttemptNote | undefined) => Effect.Effect<ReadonlyArray<A>, SqlError>
  /** The same as a statement for a larger `SqlAtomic` step. */
  readonly statement: (
    values: Readonly<Record<Name, unknown>>,
    note: AttemptNote | undefined
  ) => Statement.Statement<Record<string, unknown>>
}

/**
 * A guarded order write (`UPDATE hookgate_orders SET …${noted} WHERE order_key = :key AND
 * lease_token = :token … RETURNING`) that also keeps the attempt's row, only if the write
 * applies, in the same statement. `write` puts `noted` right after its SET list's last
 * assignment; it names the slots `key`, `token` and `now`, and sets `updated_at` to `now`.
 * Postgres: the insert reads the update's RETURNING rows (`WITH u AS (UPDATE …) , a AS
 * (INSERT … FROM u)`), and `noted` is empty. SQLite and D1, whose UPDATE cannot sit in a
 * WITH: `noted` sets the order's `note_*` columns, and migration 0012's trigger inserts the
 * row for the order that write updated (keyed by the token it replaced, recorded at its
 * `updated_at`).
 */
export const recordedStep = <const Name extends string, A extends object>(
  sql: SqlClient.SqlClient,
  direct: DirectStatementsShape,
  names: ReadonlyArray<Name>,
  write: (slot: Readonly<Record<Name, string>>, noted: Statement.Fragment) => Statement.Statement<unknown>
): RecordedStep<Name, A> => {
  const alone = compiled<Name, A>(sql, direct, names, ($) => write($, sql``))
  const slots = [...names, ...ATTEMPT_SLOTS] as ReadonlyArray<Name | AttemptSlot>
  const both = compiled<Name | AttemptSlot, A>(sql, direct, slots, ($) =>
    sql.onDialectOrElse({
      pg: () =>
        sql`WITH u AS (${write($, sql``)}),
a AS (${sql.literal(INSERT_ATTEMPT)} ${attemptSelect(sql, $ as never)} FROM u ON CONFLICT DO NOTHING)
SELECT * FROM u`,
      orElse: () =>
        write(
          $,
          sql`, note_attempt = ${$.attemptNo}, note_outcome = ${$.outcome},
  note_error_class = ${$.errorClass}, note_detail = ${$.detail}, note_started_at = ${$.startedAt}`
        )
    }))
  const statement = (values: Readonly<Record<Name, unknown>>, note: AttemptNote | undefined) =>
    note === undefined ? alone.statement(values) : both.statement({ ...values, ...noteValues(note) })
  return {
    run: (values, note) => (note === undefined ? alone.run(values) : both.run({ ...values, ...noteValues(note) })),
    statement: (values, note) => statement(values, note) as Statement.Statement<Record<string, unknown>>
  }
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
