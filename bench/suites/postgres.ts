import { PgStore } from "@hookgate/store-pg"
import { PgTestServer } from "@hookgate/store-pg/testing"
import { Effect, Layer, Redacted } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { once } from "node:events"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { type BenchSuite, figure, median } from "../lib.js"

/**
 * Issue 13's figures: orders per second through `receive` on one PostgreSQL server
 * from 1, 2 and 4 processes (the scaling curve), beside the same HMAC and the same two
 * statements issued with `pg` alone from as many processes, in the same run, on a
 * throwaway server (`PgTestServer`: fsync off, so the figures measure the protocol and
 * the server's CPU, not a disk). The orders of a round are split evenly across the processes.
 * hookgate runs as the Node gateway does (node:crypto's HMAC, no tracer); both sides
 * count their round trips per order (what a loaded machine does not change). Each side's
 * processes warm up first, then the two sides take ROUNDS rounds in turn (which goes first
 * alternates) and the median round is published: one round of a few seconds moved the 1-process
 * ratio between 0.56 and 0.89 from one run to the next on a shared machine.
 */

const ORDERS = 4000
const ROUNDS = 5
const PROCESSES = [1, 2, 4] as const
const child = fileURLToPath(new URL("./pg-receive-child.js", import.meta.url))

interface ChildResult {
  readonly orders: number
  readonly ms: number
  readonly roundTripsPerOrder: number
}

const migrated = async (server: PgTestServer, name: string) => {
  const url = await server.createDatabase(name)
  // Connect once, migrate, close: the children find the schema ready.
  await Effect.runPromise(Effect.scoped(Layer.build(PgStore.layerClient({ url: Redacted.make(url) }))))
  return url
}

const startChild = (mode: string, url: string, prefix: string, count: number) => {
  const process_ = spawn(process.execPath, [child, mode, url, prefix, String(count), String(ROUNDS)], { stdio: ["pipe", "pipe", "inherit"] })
  const lines = createInterface({ input: process_.stdout! })[Symbol.asyncIterator]()
  const exited = once(process_, "exit").then(([code]) => Promise.reject(new Error(`bench child exited (${code}) before its round ended`)))
  exited.catch(() => {})
  const next = () => Promise.race([lines.next().then((line) => line.value as string), exited])
  return {
    process: process_ as ChildProcess,
    ready: next().then((line) => {
      if (line !== "ready") throw new Error(`bench child: expected "ready", got ${line}`)
    }),
    /** Runs one round: its result line. */
    round: async () => {
      process_.stdin!.write("go\n")
      return JSON.parse(await next()) as ChildResult
    },
    done: once(process_, "exit")
  }
}

type Child = ReturnType<typeof startChild>

/** One round on each of `children` at once: the orders per second of all, and the round trips per order. */
const round = async (children: ReadonlyArray<Child>) => {
  const start = performance.now()
  const results = await Promise.all(children.map((c) => c.round()))
  const seconds = (performance.now() - start) / 1000
  const orders = results.reduce((sum, r) => sum + r.orders, 0)
  return { ordersPerSecond: orders / seconds, roundTripsPerOrder: results.reduce((sum, r) => sum + r.roundTripsPerOrder * r.orders, 0) / orders }
}

type Round = Awaited<ReturnType<typeof round>>

/** `processes` processes per side, each with its share of ORDERS per round; the sides' rounds in turn. */
const run = async (server: PgTestServer, processes: number) => {
  const side = async (mode: "hookgate" | "direct") => {
    const url = await migrated(server, `bench_${mode}_${processes}`)
    const children = Array.from({ length: processes }, (_, i) => startChild(mode, url, `${mode}${processes}p${i}-`, ORDERS / processes))
    await Promise.all(children.map((c) => c.ready))
    return children
  }
  const hookgate = await side("hookgate")
  const direct = await side("direct")
  try {
    const rounds = { hookgate: [] as Array<Round>, direct: [] as Array<Round> }
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? (["hookgate", "direct"] as const) : (["direct", "hookgate"] as const)
      for (const mode of order) rounds[mode].push(await round(mode === "hookgate" ? hookgate : direct))
    }
    const summary = (results: ReadonlyArray<Round>) => ({
      ordersPerSecond: median(results.map((r) => r.ordersPerSecond)),
      roundTripsPerOrder: median(results.map((r) => r.roundTripsPerOrder))
    })
    return { hookgate: summary(rounds.hookgate), direct: summary(rounds.direct) }
  } finally {
    // A child whose rounds are not all run (the suite failed) exits when its stdin closes.
    for (const c of [...hookgate, ...direct]) c.process.stdin!.end()
    await Promise.all([...hookgate, ...direct].map((c) => c.done))
  }
}

export const postgresSuite: BenchSuite = {
  name: "postgres",
  run: async () => {
    const server = await PgTestServer.start()
    try {
      const figures = []
      for (const processes of PROCESSES) {
        const { hookgate, direct } = await run(server, processes)
        if (processes === 1) {
          figures.push(
            figure("pgRoundTripsPerOrder", "round trips to Postgres per delivered order (hookgate)", hookgate.roundTripsPerOrder, "round trips"),
            figure("pgDirectRoundTripsPerOrder", "round trips to Postgres per order (pg alone)", direct.roundTripsPerOrder, "round trips")
          )
        }
        figures.push(
          figure(`pgOrdersPerSecond${processes}p`, `orders/s through receive on Postgres, ${processes} process(es) (median of ${ROUNDS} rounds of ${ORDERS} orders)`, hookgate.ordersPerSecond, "orders/s"),
          figure(`pgDirectOrdersPerSecond${processes}p`, `orders/s, same HMAC + two statements with pg alone, ${processes} process(es) (median of ${ROUNDS} rounds)`, direct.ordersPerSecond, "orders/s")
        )
      }
      return figures
    } finally {
      await server.dispose()
    }
  },
  ratios: PROCESSES.map((p) =>
    [`pgOrdersPerSecond${p}p / pgDirectOrdersPerSecond${p}p`, `pgOrdersPerSecond${p}p`, `pgDirectOrdersPerSecond${p}p`] as const
  )
}
