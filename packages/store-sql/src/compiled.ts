import type * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"

const MARK = "\u0000hookgate-slot:"

/**
 * A fixed-shape statement compiled once for the client's dialect (`?` or `$n`
 * placeholders): `build` writes it as an ordinary template over named slots,
 * and each call binds that call's values to the compiled text through
 * `sql.unsafe`, instead of building and compiling the template again. Only for
 * statements whose text never depends on the values (a varying fragment is two
 * compiled statements).
 */
export const compiled = <const Name extends string, A extends object = Record<string, unknown>>(
  sql: SqlClient.SqlClient,
  names: ReadonlyArray<Name>,
  build: (slot: Readonly<Record<Name, string>>) => Statement.Statement<unknown>
): (values: Readonly<Record<Name, unknown>>) => Statement.Statement<A> => {
  const slot = Object.fromEntries(names.map((name) => [name, `${MARK}${name}`])) as Record<Name, string>
  const [text, binds] = build(slot).compile()
  const order = binds.map((bind) => {
    const name = typeof bind === "string" && bind.startsWith(MARK) ? bind.slice(MARK.length) as Name : undefined
    if (name === undefined || !names.includes(name)) throw new Error(`compiled statement: a value outside the slots (${text})`)
    return name
  })
  return (values) => sql.unsafe<A>(text, order.map((name) => values[name]))
}
