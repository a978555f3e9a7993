import { D1Store } from "@hookgate/store-d1"
import { Effect, Layer } from "effect"
import { Miniflare } from "miniflare"
import { BRIDGE_SCRIPT, type BridgeStatement, bridgeDatabase } from "./d1-bridge.js"

/**
 * One Miniflare per test file with a pool of empty D1 databases, so every
 * test gets a fresh database without paying Miniflare's start-up again. The
 * databases are reached through the bridge Worker (see `d1-bridge.ts`).
 */
export const startD1Pool = async (size: number) => {
  const names = Array.from({ length: size }, (_, i) => `DB_${i}`)
  const mf = new Miniflare({
    modules: true,
    script: BRIDGE_SCRIPT,
    d1Databases: Object.fromEntries(names.map((name) => [name, `hookgate-test-${name}`]))
  })
  await mf.ready
  let next = 0
  return {
    /** A database nobody has used yet. */
    fresh: async (): Promise<D1Store.D1Database> => {
      const name = names[next++]
      if (name === undefined) throw new Error(`the D1 pool of ${size} databases is used up`)
      return bridgeDatabase(mf, name)
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

/**
 * A D1 binding that records how many parameters each statement binds, on its
 * own and inside `batch()`, then hands the statement to `db` unchanged.
 */
export const testDatabase = (db: D1Store.D1Database, trace?: ParameterTrace): D1Store.D1Database => {
  if (trace === undefined) return db
  const record = (sql: string, params: ReadonlyArray<unknown>) => {
    trace.statements++
    if (params.length > trace.widest) {
      trace.widest = params.length
      trace.widestSql = sql
    }
    if (trace.largestString !== undefined) {
      for (const value of params) {
        if (typeof value === "string") trace.largestString = Math.max(trace.largestString, new TextEncoder().encode(value).byteLength)
      }
    }
  }
  const traced = (statement: BridgeStatement): BridgeStatement => ({
    ...statement,
    bind: (...params) => {
      record(statement.sql, params)
      return traced(statement.bind(...params))
    }
  })
  const inner = db as unknown as { prepare(sql: string): BridgeStatement }
  return { ...db, prepare: (sql: string) => traced(inner.prepare(sql)) } as unknown as D1Store.D1Database
}

/** The D1 store on a fresh database of the pool, migrated by `D1Store.applyMigrations`. */
export const freshStoreLayer = (pool: () => D1Pool, trace?: ParameterTrace) =>
  Layer.unwrapEffect(
    Effect.promise(() => pool().fresh()).pipe(
      Effect.map((db) => D1Store.layer({ db: testDatabase(db, trace), migrate: true }))
    )
  )

export const applyMigrations = D1Store.applyMigrations
