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
    statement: (values) => sql.unsafe<A>(text, paramsOf(values))
  }
}

