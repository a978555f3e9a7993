import type { D1Store } from "@hookgate/store-d1"
import type { Miniflare } from "miniflare"

/**
 * Real D1 databases for Node-side tests, reached over plain asynchronous
 * requests to a small Worker that holds the bindings.
 *
 * Why not Miniflare's `getD1Database`: its Node-side proxy answers every
 * `prepare` and `bind` with a synchronous fetch on a worker thread. Under load
 * (CI on two cores, several test files at once) one of those replies can come
 * back out of step; Miniflare then fails an internal assertion and every later
 * call on that Miniflare fails too. Here each operation is one request, with
 * nothing synchronous in between, and statements stay plain data (SQL and
 * parameters) until they run.
 */

/** The Worker that runs each operation against `env[db]` and answers JSON. */
export const BRIDGE_SCRIPT = /* javascript */ `
export default {
  async fetch(request, env) {
    const { db, op, sql, params, column, columnNames, statements } = await request.json()
    const d1 = env[db]
    const statement = (sql, params) => params.length === 0 ? d1.prepare(sql) : d1.prepare(sql).bind(...params)
    try {
      let result
      if (op === "first") result = column === undefined ? await statement(sql, params).first() : await statement(sql, params).first(column)
      else if (op === "run") result = await statement(sql, params).run()
      else if (op === "all") result = await statement(sql, params).all()
      else if (op === "raw") result = await statement(sql, params).raw({ columnNames })
      else if (op === "batch") result = await d1.batch(statements.map((s) => statement(s.sql, s.params)))
      else if (op === "exec") result = await d1.exec(sql)
      else return Response.json({ error: { message: "unknown operation " + op } })
      return Response.json({ result: result === undefined ? null : result })
    } catch (error) {
      return Response.json({ error: { message: String(error && error.message || error) } })
    }
  }
}
`

interface Operation {
  readonly op: "first" | "run" | "all" | "raw" | "batch" | "exec"
  readonly sql?: string
  readonly params?: ReadonlyArray<unknown>
  readonly column?: string
  readonly columnNames?: boolean
  readonly statements?: ReadonlyArray<{ readonly sql: string; readonly params: ReadonlyArray<unknown> }>
}

/** A statement as data: what `prepare(sql).bind(...)` describes, run when asked. */
export interface BridgeStatement {
  readonly sql: string
  readonly params: ReadonlyArray<unknown>
  bind(...params: Array<unknown>): BridgeStatement
  first(column?: string): Promise<unknown>
  run(): Promise<unknown>
  all(): Promise<unknown>
  raw(options?: { columnNames?: boolean }): Promise<unknown>
}

/** The D1 binding named `name` of the bridge Worker in `mf`, as a `D1Database`. */
export const bridgeDatabase = (mf: Miniflare, name: string): D1Store.D1Database => {
  const call = async (operation: Operation): Promise<any> => {
    const response = await mf.dispatchFetch("http://d1.bridge/", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ db: name, ...operation })
    })
    const answer = (await response.json()) as { result?: unknown; error?: { message: string } }
    if (answer.error !== undefined) throw new Error(answer.error.message)
    return answer.result
  }
  const statement = (sql: string, params: ReadonlyArray<unknown>): BridgeStatement => ({
    sql,
    params,
    bind: (...more) => statement(sql, more),
    first: (column) => call({ op: "first", sql, params, ...(column === undefined ? {} : { column }) }),
    run: () => call({ op: "run", sql, params }),
    all: () => call({ op: "all", sql, params }),
    raw: (options) => call({ op: "raw", sql, params, columnNames: options?.columnNames === true })
  })
  return {
    prepare: (sql: string) => statement(sql, []),
    batch: (statements: ReadonlyArray<BridgeStatement>) =>
      call({ op: "batch", statements: statements.map(({ params, sql }) => ({ sql, params })) }),
    exec: (sql: string) => call({ op: "exec", sql }),
    dump: () => Promise.reject(new Error("dump is not offered by the test bridge")),
    withSession: () => {
      throw new Error("withSession is not offered by the test bridge")
    }
  } as unknown as D1Store.D1Database
}
