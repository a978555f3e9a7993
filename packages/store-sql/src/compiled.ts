import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

type Rows = ReadonlyArray<Record<string, unknown>>

/** How a store's compiled statements run; see `DirectStatements`. */
export interface DirectStatementsShape {
  /**
   * Runs the compiled `text` with `params`, or answers `viaClient()` (the
   * statement through the `SqlClient`) whenever it cannot do better.
   */
  readonly run: (text: string, params: ReadonlyArray<unknown>, viaClient: () => Effect.Effect<Rows, SqlError>) => Effect.Effect<Rows, SqlError>
  /**
   * Runs compiled statements that must stand or fall together (in order, each one's rows
   * answered), or answers `viaAtomic()` (them through `SqlAtomic`) whenever it cannot do
   * better. Optional: without it, they always go through `SqlAtomic`.
   */
  readonly runAtomic?: (
    calls: ReadonlyArray<CompiledCall>,
    viaAtomic: () => Effect.Effect<ReadonlyArray<Rows>, SqlError>
  ) => Effect.Effect<ReadonlyArray<Rows>, SqlError>
}

/** A compiled statement's text with one call's parameters. */
export interface CompiledCall {
  readonly text: string
  readonly params: ReadonlyArray<unknown>
}

/**
 * A faster way than the `SqlClient` to run the store's compiled statements,
 * which a store for one driver may provide (store-sqlite runs them on
 * better-sqlite3 prepared statements when no transaction holds the connection
 * and no tracer wants their spans). Without one, every statement goes through
 * the client.
 */
export class DirectStatements extends Context.Reference<DirectStatements>()("@hookgate/store-sql/DirectStatements", {
  defaultValue: (): DirectStatementsShape => ({ run: (_text, _params, viaClient) => viaClient() })
}) {}

/** A statement compiled once: `run` executes it with a call's values, `statement` is it for `SqlAtomic`. */
export interface Compiled<Name extends string, A> {
  readonly run: (values: Readonly<Record<Name, unknown>>) => Effect.Effect<ReadonlyArray<A>, SqlError>
  readonly statement: (values: Readonly<Record<Name, unknown>>) => Statement.Statement<A>
  /** Its text and this call's parameters, for `DirectStatementsShape.runAtomic`. */
  readonly call: (values: Readonly<Record<Name, unknown>>) => CompiledCall
}

const MARK = "\u0000hookgate-slot:"

/**
 * A fixed-shape statement compiled once for the client's dialect (`?` or `$n`
 * placeholders): `build` writes it as an ordinary template over named slots,
 * and each call binds that call's values to the compiled text, instead of
 * building and compiling the template again; it runs through `direct` (see
 * `DirectStatements`). Only for statements whose text never depends on the
 * values (a varying fragment makes two compiled statements).
 */
export const compiled = <const Name extends string, A extends object = Record<string, unknown>>(
  sql: SqlClient.SqlClient,
  direct: DirectStatementsShape,
  names: ReadonlyArray<Name>,
  build: (slot: Readonly<Record<Name, string>>) => Statement.Statement<unknown>
): Compiled<Name, A> => {
  const slot = Object.fromEntries(names.map((name) => [name, `${MARK}${name}`])) as Record<Name, string>
  const [text, binds] = build(slot).compile()
  const order = binds.map((bind) => {
    const name = typeof bind === "string" && bind.startsWith(MARK) ? bind.slice(MARK.length) as Name : undefined
    if (name === undefined || !names.includes(name)) throw new Error(`compiled statement: a value outside the slots (${text})`)
    return name
  })
  const paramsOf = (values: Readonly<Record<Name, unknown>>) => order.map((name) => values[name])
  return {
    run: (values) => {
      const params = paramsOf(values)
      return direct.run(text, params, () => sql.unsafe(text, params)) as Effect.Effect<ReadonlyArray<A>, SqlError>
    },
    statement: (values) => sql.unsafe<A>(text, paramsOf(values)),
    call: (values) => ({ text, params: paramsOf(values) })
  }
}

/**
 * Compiled statements as one atomic step: on `direct`'s `runAtomic` when the store has
 * one (SQLite runs them in one driver transaction when nothing holds the connection),
 * else through `atomic` (a transaction; one D1 batch). Answers each statement's rows.
 */
export const runCompiledAtomically = (
  sql: SqlClient.SqlClient,
  direct: DirectStatementsShape,
  atomic: (statements: ReadonlyArray<Statement.Statement<Record<string, unknown>>>) => Effect.Effect<ReadonlyArray<Rows>, SqlError>,
  calls: ReadonlyArray<CompiledCall>
): Effect.Effect<ReadonlyArray<Rows>, SqlError> => {
  const viaAtomic = () => atomic(calls.map((call) => sql.unsafe<Record<string, unknown>>(call.text, call.params)))
  return direct.runAtomic === undefined ? viaAtomic() : direct.runAtomic(calls, viaAtomic)
}
