import { D1Store } from "@hookgate/store-d1"
import { Miniflare } from "miniflare"
import type { RealIo } from "./real-io.js"

/**
 * D1 for the simulation: Miniflare's workerd with an empty D1 database (a fresh
 * one per shard), reached through a worker that runs the store's calls on the
 * real binding. The binding each world's store gets queues its calls; the
 * world's driver sends each round of them to the worker in one request
 * (`RealIo`'s `flush`), where they run one after another in the order they were
 * made, so a round's results do not depend on timing. (Miniflare's own Node
 * proxy, `getD1Database`, answers each `prepare` and `bind` with a synchronous
 * round trip, which under load can fail: packages/store-d1/test/d1-bridge.ts
 * reaches D1 through a worker too, one call per request. A plain `fetch` to the
 * worker's URL answers in a third of `dispatchFetch`'s time.)
 */

/** The worker: runs a round of calls on the named binding, in order, and answers each one's result or error. */
const script = `
const statement = (db, s) => (s.params.length === 0 ? db.prepare(s.sql) : db.prepare(s.sql).bind(...s.params))
const run = (db, call) => {
  switch (call.op) {
    case "first": return call.column === undefined ? statement(db, call).first() : statement(db, call).first(call.column)
    case "run": return statement(db, call).run()
    case "all": return statement(db, call).all()
    case "raw": return statement(db, call).raw(call.options)
    case "batch": return db.batch(call.statements.map((s) => statement(db, s)))
    case "exec": return db.exec(call.sql)
  }
  throw new Error("unknown D1 call " + call.op)
}
export default {
  async fetch(request, env) {
    const { binding, calls } = await request.json()
    const answers = []
    for (const call of calls) {
      try {
        answers.push({ ok: (await run(env[binding], call)) ?? null })
      } catch (error) {
        answers.push({ error: String(error?.message ?? error) })
      }
    }
    return Response.json(answers)
  }
}`

/** This thread's running Miniflares, for `dispose`. */
const running = new Set<Miniflare>()

/**
 * A Miniflare of its own with one empty D1 database: the URL of the worker that
 * runs its calls, and how to stop it. One workerd per world: worlds running at
 * once do not queue behind each other's rounds in one process.
 */
export const freshD1 = async (): Promise<{ readonly url: URL; readonly binding: string; readonly dispose: () => Promise<void> }> => {
  const mf = new Miniflare({ modules: true, script, d1Databases: { DB: "hookgate-sim" } })
  running.add(mf)
  const dispose = () => {
    running.delete(mf)
    return mf.dispose()
  }
  try {
    return { url: await mf.ready, binding: "DB", dispose }
  } catch (error) {
    await dispose()
    throw error
  }
}

/** The D1 store on `db`, migrated when the layer is built. */
export const d1StoreLayer = (db: D1Store.D1Database) => D1Store.layer({ db, migrate: true })

/** Stops this thread's Miniflares. */
export const dispose = () => Promise.all([...running].map((mf) => mf.dispose())).then(() => running.clear())

interface Call {
  readonly op: "first" | "run" | "all" | "raw" | "batch" | "exec"
  readonly sql?: string
  readonly params?: ReadonlyArray<unknown>
  readonly column?: string
  readonly options?: unknown
  readonly statements?: ReadonlyArray<{ readonly sql: string; readonly params: ReadonlyArray<unknown> }>
}

/**
 * A D1 binding (as `D1Store.layer` takes it) whose calls are made in the world
 * of `io`: queued, and sent in one request when the driver flushes `io`.
 */
export const d1Binding = (target: { readonly url: URL; readonly binding: string }): {
  readonly db: D1Store.D1Database
  readonly attach: (io: RealIo) => void
  readonly flush: () => void
} => {
  let io: RealIo | undefined
  let queued: Array<{ readonly call: Call; readonly settle: (answer: { ok?: unknown; error?: string }) => void }> = []
  const send = (call: Call) =>
    new Promise<unknown>((resolve, reject) => {
      if (io === undefined) throw new Error("a D1 call outside a simulated world")
      const finish = io.start()
      queued.push({
        call,
        settle: (answer) =>
          finish(() => (answer.error === undefined ? resolve(answer.ok) : reject(new Error(answer.error))))
      })
    })
  const flush = () => {
    if (queued.length === 0) return
    const round = queued
    queued = []
    fetch(target.url, {
      method: "POST",
      body: JSON.stringify({ binding: target.binding, calls: round.map((q) => q.call) })
    })
      .then((response) => response.json() as Promise<Array<{ ok?: unknown; error?: string }>>)
      .then(
        (answers) => round.forEach((q, i) => q.settle(answers[i] ?? { error: "no answer" })),
        (error) => round.forEach((q) => q.settle({ error: String(error) }))
      )
  }
  const statement = (sql: string, params: ReadonlyArray<unknown>) => ({
    sql,
    params,
    bind: (...values: Array<unknown>) => statement(sql, values),
    first: (column?: string) => send({ op: "first", sql, params, ...(column === undefined ? {} : { column }) }),
    run: () => send({ op: "run", sql, params }),
    all: () => send({ op: "all", sql, params }),
    raw: (options?: unknown) => send({ op: "raw", sql, params, options })
  })
  const db = {
    prepare: (sql: string) => statement(sql, []),
    batch: (statements: ReadonlyArray<ReturnType<typeof statement>>) =>
      send({ op: "batch", statements: statements.map((s) => ({ sql: s.sql, params: s.params })) }),
    exec: (sql: string) => send({ op: "exec", sql })
  } as unknown as D1Store.D1Database
  return { db, attach: (world) => void (io = world), flush }
}
