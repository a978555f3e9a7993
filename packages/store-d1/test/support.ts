import { D1Store } from "@hookgate/store-d1"
import { Effect, Layer } from "effect"
import { Miniflare } from "miniflare"

/**
 * One Miniflare per test file with a pool of empty D1 databases, so every
 * test gets a fresh database without paying Miniflare's start-up again.
 */
export const startD1Pool = async (size: number) => {
  const names = Array.from({ length: size }, (_, i) => `DB_${i}`)
  const mf = new Miniflare({
    modules: true,
    script: "export default { fetch() { return new Response(null, { status: 404 }) } }",
    d1Databases: Object.fromEntries(names.map((name) => [name, `hookgate-test-${name}`]))
  })
  await mf.ready
  let next = 0
  return {
    /** A database nobody has used yet. */
    fresh: async (): Promise<D1Store.D1Database> => {
      const name = names[next++]
      if (name === undefined) throw new Error(`the D1 pool of ${size} databases is used up`)
      return (await mf.getD1Database(name)) as unknown as D1Store.D1Database
    },
    dispose: () => mf.dispose()
  }
}
export type D1Pool = Awaited<ReturnType<typeof startD1Pool>>

/** The widest statement seen so far, and how many were bound. */
export interface ParameterTrace {
  statements: number
  widest: number
  widestSql: string
  /** The longest string bound, in UTF-8 bytes (tracked when present). */
  largestString?: number
}

type Statement = ReturnType<D1Store.D1Database["prepare"]>

/**
 * A D1 binding for tests run from Node: it records how many parameters each
 * statement binds (on its own and inside `batch()`), and runs one operation at
 * a time. Miniflare's Node-side proxy (`getD1Database`) answers property reads
 * with a synchronous fetch that can lose its reply when it overlaps the proxy's
 * own asynchronous calls (an assertion in its SynchronousFetcher, seen under
 * load), after which every later call fails. A real D1 database also runs one
 * statement at a time, so serialising here changes nothing the store relies on;
 * statements stay lazy (sql and parameters) until their turn comes.
 */
export const testDatabase = (db: D1Store.D1Database, trace?: ParameterTrace): D1Store.D1Database => {
  let tail: Promise<unknown> = Promise.resolve()
  const serial = <A>(run: () => Promise<A>): Promise<A> => {
    const next = tail.then(run, run)
    tail = next.catch(() => undefined)
    return next
  }
  const real = (sql: string, params: ReadonlyArray<unknown>): Statement =>
    params.length === 0 ? db.prepare(sql) : db.prepare(sql).bind(...params)
  const lazy = (sql: string, params: ReadonlyArray<unknown>) => ({
    sql,
    params,
    bind: (...more: Array<unknown>) => {
      if (trace) {
        trace.statements++
        if (more.length > trace.widest) {
          trace.widest = more.length
          trace.widestSql = sql
        }
        if (trace.largestString !== undefined) {
          for (const value of more) {
            if (typeof value === "string") trace.largestString = Math.max(trace.largestString, new TextEncoder().encode(value).byteLength)
          }
        }
      }
      return lazy(sql, more)
    },
    first: (column?: string) => serial(() => (column === undefined ? real(sql, params).first() : real(sql, params).first(column))),
    run: () => serial(() => real(sql, params).run()),
    all: () => serial(() => real(sql, params).all()),
    raw: (options?: { columnNames?: boolean }) => serial(() => real(sql, params).raw(options as never))
  })
  return {
    prepare: (sql: string) => lazy(sql, []),
    batch: (statements: Array<ReturnType<typeof lazy>>) =>
      serial(() => db.batch(statements.map((statement) => real(statement.sql, statement.params)))),
    exec: (sql: string) => serial(() => db.exec(sql)),
    dump: () => serial(() => db.dump()),
    withSession: (constraint?: string) => db.withSession(constraint)
  } as unknown as D1Store.D1Database
}

/** The D1 store on a fresh database of the pool, migrated by `D1Store.applyMigrations`. */
export const freshStoreLayer = (pool: () => D1Pool, trace?: ParameterTrace) =>
  Layer.unwrapEffect(
    Effect.promise(() => pool().fresh()).pipe(
      Effect.map((db) => D1Store.layer({ db: testDatabase(db, trace), migrate: true }))
    )
  )

export const applyMigrations = D1Store.applyMigrations
