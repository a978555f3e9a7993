import { PgStore } from "@hookgate/store-pg"
import { PgTestServer } from "@hookgate/store-pg/testing"
import { Effect, Layer, Redacted } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { once } from "node:events"
import { fileURLToPath } from "node:url"
import { type BenchSuite, figure } from "../lib.js"

/**
 * Issue 13's figures: orders per second through `receive` on one PostgreSQL server
 * from 1, 2 and 4 processes (the scaling curve), beside the same HMAC and the same two
 * statements issued with `pg` alone from as many processes, in the same run, on a
 * throwaway server (`PgTestServer`: fsync off, so the figures measure the protocol and
 * the server's CPU, not a disk). The orders are split evenly across the processes.
 * hookgate runs as the Node gateway does (node:crypto's HMAC, no tracer); both sides
 * count their round trips per order (what a loaded machine does not change).
 */

const ORDERS = 4000
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
  const process_ = spawn(process.execPath, [child, mode, url, prefix, String(count)], { stdio: ["pipe", "pipe", "inherit"] })
  let output = ""
  process_.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()))
  const ready = new Promise<void>((resolve, reject) => {
    process_.stdout!.on("data", () => output.includes("ready\n") && resolve())
    process_.once("exit", (code) => reject(new Error(`bench child exited (${code}) before it was ready`)))
  })
  const done = once(process_, "exit").then(([code]) => {
    if (code !== 0) throw new Error(`bench child exited with ${code}`)
    return JSON.parse(output.trim().split("\n").at(-1)!) as ChildResult
  })
  return { process: process_ as ChildProcess, ready, done }
}

/** `processes` processes, each with its share of ORDERS, started together once all are connected. */
const run = async (server: PgTestServer, mode: "hookgate" | "direct", processes: number) => {
  const url = await migrated(server, `bench_${mode}_${processes}`)
  const children = Array.from({ length: processes }, (_, i) => startChild(mode, url, `${mode}${processes}p${i}-`, ORDERS / processes))
  await Promise.all(children.map((c) => c.ready))
  const start = performance.now()
  for (const c of children) c.process.stdin!.end("go\n")
  const results = await Promise.all(children.map((c) => c.done))
  const seconds = (performance.now() - start) / 1000
  return {
    ordersPerSecond: ORDERS / seconds,
    roundTripsPerOrder: results.reduce((sum, r) => sum + r.roundTripsPerOrder * r.orders, 0) / ORDERS
  }
}

export const postgresSuite: BenchSuite = {
  name: "postgres",
  run: async () => {
    const server = await PgTestServer.start()
    try {
      const figures = []
      for (const processes of PROCESSES) {
        const hookgate = await run(server, "hookgate", processes)
        const direct = await run(server, "direct", processes)
        if (processes === 1) {
          figures.push(
            figure("pgRoundTripsPerOrder", "round trips to Postgres per delivered order (hookgate)", hookgate.roundTripsPerOrder, "round trips"),
            figure("pgDirectRoundTripsPerOrder", "round trips to Postgres per order (pg alone)", direct.roundTripsPerOrder, "round trips")
          )
        }
        figures.push(
          figure(`pgOrdersPerSecond${processes}p`, `orders/s through receive on Postgres, ${processes} process(es) (${ORDERS} orders)`, hookgate.ordersPerSecond, "orders/s"),
          figure(`pgDirectOrdersPerSecond${processes}p`, `orders/s, same HMAC + two statements with pg alone, ${processes} process(es)`, direct.ordersPerSecond, "orders/s")
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
