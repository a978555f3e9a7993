import { applyMigrations, type D1Database, D1Store } from "@hookgate/store-d1"
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
    fresh: async (): Promise<D1Database> => {
      const name = names[next++]
      if (name === undefined) throw new Error(`the D1 pool of ${size} databases is used up`)
      return (await mf.getD1Database(name)) as unknown as D1Database
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
}

/**
 * A D1 binding that records how many parameters each statement binds, on its
 * own and inside `batch()`, and otherwise is the binding it wraps.
 */
export const tracingDatabase = (db: D1Database, trace: ParameterTrace): D1Database => {
  const real = new WeakMap<object, unknown>()
  const wrap = (statement: ReturnType<D1Database["prepare"]>, sql: string): ReturnType<D1Database["prepare"]> => {
    const wrapper = {
      bind: (...params: Array<unknown>) => {
        trace.statements++
        if (params.length > trace.widest) {
          trace.widest = params.length
          trace.widestSql = sql
        }
        return wrap(statement.bind(...params), sql)
      },
      first: (column?: string) => (column === undefined ? statement.first() : statement.first(column)),
      run: () => statement.run(),
      all: () => statement.all(),
      raw: (options?: { columnNames?: boolean }) => statement.raw(options as never)
    }
    real.set(wrapper, statement)
    return wrapper as unknown as ReturnType<D1Database["prepare"]>
  }
  const unwrap = (statement: object) => (real.get(statement) ?? statement) as ReturnType<D1Database["prepare"]>
  return {
    prepare: (sql: string) => wrap(db.prepare(sql), sql),
    batch: (statements: Array<ReturnType<D1Database["prepare"]>>) => db.batch(statements.map(unwrap)),
    exec: (sql: string) => db.exec(sql),
    dump: () => db.dump(),
    withSession: (constraint?: string) => db.withSession(constraint)
  } as unknown as D1Database
}

/** The D1 store on a fresh database of the pool, migrated by `applyMigrations`. */
export const freshStoreLayer = (pool: () => D1Pool, trace?: ParameterTrace) =>
  Layer.unwrapEffect(
    Effect.promise(() => pool().fresh()).pipe(
      Effect.map((db) => D1Store.layer({ db: trace ? tracingDatabase(db, trace) : db, migrate: true }))
    )
  )

export { applyMigrations }
