import Database from "better-sqlite3"
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type BenchSuite, figure, median } from "../lib.js"
import { driveRound, type RoundResult } from "./http-load.js"
import { cpuSeconds, type ResendStandIn, type Started, startBenchServers, stop } from "./http-processes.js"

/**
 * Issue 16's HTTP figures: sustained webhooks/s and p50/p99 latency of
 * `hookgate serve` over loopback, driven by autocannon, beside a minimal
 * node:http server doing the same work (http-baseline-server.ts) and a minimal
 * @effect/platform server doing it too (http-effect-floor-server.ts: the floor an
 * Effect HTTP server stands on), in the same run: rounds interleaved (the order
 * rotating), medians reported. Both send
 * their receipts through the same local Resend stand-in (its own process) as
 * the gateway does in production with HOOKGATE_MAILER=resend, and all store
 * orders in a SQLite file. Afterwards every order answered 2xx must be stored
 * as sent and have reached the stand-in, or the suite fails.
 */

const ROUNDS = 5
const ROUND_SECONDS = 6
const WARMUP_SECONDS = 4
const CONNECTIONS = 16

interface Round extends RoundResult {
  /** The server process's CPU time per webhook answered 2xx (Linux only). */
  readonly cpuMsPerWebhook: number | undefined
}

interface Side {
  readonly name: string
  /** Starts every session id of this side (`cs_<prefix>…`). */
  readonly prefix: string
  readonly db: string
  readonly server: Started
  readonly rounds: Array<Round>
  readonly okKeys: Array<string>
}

const sum = (values: ReadonlyArray<number>) => values.reduce((a, b) => a + b, 0)

/** What `checkDelivered` needs of a side. */
export type DeliveredSide = Pick<Side, "name" | "prefix" | "db" | "okKeys">

/** The 2xx orders that are not stored as sent, and how many rows are in each status. */
const storedAsSent = (side: DeliveredSide) => {
  const db = new Database(side.db, { readonly: true })
  try {
    const status = db.prepare<[string], { status: string }>("SELECT status FROM hookgate_orders WHERE order_key = ?")
    const missing = side.okKeys.filter((key) => status.get(key)?.status !== "sent")
    const statuses = db.prepare<[], { status: string; n: number }>("SELECT status, COUNT(*) AS n FROM hookgate_orders GROUP BY status").all()
    return { missing, statuses: Object.fromEntries(statuses.map((s) => [s.status, s.n])) }
  } finally {
    db.close()
  }
}

/**
 * Fails unless every order answered 2xx is stored as sent and at least as many
 * emails reached the stand-in (an order whose request was cut off at a round's
 * end may be stored or mailed too, without counting).
 */
export const checkDelivered = async (sides: ReadonlyArray<DeliveredSide>, resend: ResendStandIn) => {
  const mailed = await resend.counts(sides.map((side) => `cs_${side.prefix}`))
  for (const [i, side] of sides.entries()) {
    const { missing, statuses } = storedAsSent(side)
    const emails = mailed.counts[i]!
    console.log(`  ${side.name}: ${side.okKeys.length} answered 2xx; orders stored ${JSON.stringify(statuses)}; ` +
      `${emails} emails accepted by the stand-in`)
    if (missing.length > 0) {
      throw new Error(`${side.name}: ${missing.length} orders answered 2xx are not stored as sent (first: ${missing[0]})`)
    }
    if (emails < side.okKeys.length) throw new Error(`${side.name}: ${side.okKeys.length} answered 2xx but only ${emails} emails reached the stand-in`)
  }
  if (mailed.refused > 0) console.log(`  the Resend stand-in refused ${mailed.refused} requests`)
}

const round = async (side: Side, secret: string, tag: string, seconds: number): Promise<Round> => {
  const cpuBefore = cpuSeconds(side.server.process)
  const result = await driveRound({ url: side.server.url, stripeSecret: secret, prefix: `${side.prefix}${tag}_`, seconds, connections: CONNECTIONS })
  const cpuAfter = cpuSeconds(side.server.process)
  const cpuMsPerWebhook = cpuBefore === undefined || cpuAfter === undefined || result.okKeys.length === 0
    ? undefined
    : ((cpuAfter - cpuBefore) * 1000) / result.okKeys.length
  side.okKeys.push(...result.okKeys)
  console.log(`  ${tag.padEnd(2)} ${side.name.padEnd(8)} ${Math.round(result.webhooksPerSecond).toString().padStart(6)} webhooks/s  ` +
    `p50 ${result.p50Ms} ms  p99 ${result.p99Ms} ms  non-2xx ${result.non2xx}  errors ${result.errors}` +
    (cpuMsPerWebhook === undefined ? "" : `  server CPU ${cpuMsPerWebhook.toFixed(2)} ms/webhook`))
  return { ...result, cpuMsPerWebhook }
}

export const httpSuite: BenchSuite = {
  name: "http",
  run: async () => {
    const dir = mkdtempSync(join(tmpdir(), "hookgate-http-bench-"))
    const secret = `whsec_bench_${randomBytes(12).toString("hex")}`
    const started: Array<Started> = []
    try {
      const { resend, gateway, gatewayDb, baseline, baselineDb, floor, floorDb } = await startBenchServers(dir, secret, started, true)
      const hookgate: Side = { name: "hookgate", prefix: "hg", db: gatewayDb, server: gateway, rounds: [], okKeys: [] }
      const bare: Side = { name: "baseline", prefix: "bl", db: baselineDb, server: baseline, rounds: [], okKeys: [] }
      const effectFloor: Side = { name: "floor", prefix: "ef", db: floorDb, server: floor, rounds: [], okKeys: [] }
      const sides = [hookgate, bare, effectFloor]

      console.log(`  ${CONNECTIONS} connections; a ${WARMUP_SECONDS} s warm-up each, then ${ROUNDS} rounds of ${ROUND_SECONDS} s each, alternating`)
      for (const side of sides) await round(side, secret, "w", WARMUP_SECONDS)
      for (let r = 0; r < ROUNDS; r++) {
        // Each side goes first, second and third in turn.
        for (const side of [...sides.slice(r % sides.length), ...sides.slice(0, r % sides.length)]) {
          side.rounds.push(await round(side, secret, String(r), ROUND_SECONDS))
        }
      }

      // In-flight work finishes as the servers close; then count what was stored and mailed.
      await stop(gateway.process)
      await stop(baseline.process)
      await stop(floor.process)
      await checkDelivered(sides, resend)

      const cpu = (side: Side, key: string, who: string) => {
        const perWebhook = side.rounds.flatMap((r) => (r.cpuMsPerWebhook === undefined ? [] : [r.cpuMsPerWebhook]))
        return perWebhook.length === ROUNDS ? [figure(key, `server process CPU per webhook, ${who}`, median(perWebhook), "ms")] : []
      }
      const figures = (side: Side, key: (name: string) => string, who: string) => [
        figure(key("WebhooksPerSecond"), `webhooks/s over loopback, ${who} (median of ${ROUNDS} × ${ROUND_SECONDS} s)`,
          median(side.rounds.map((r) => r.webhooksPerSecond)), "webhooks/s"),
        figure(key("P50Ms"), `p50 latency, ${who}`, median(side.rounds.map((r) => r.p50Ms)), "ms"),
        figure(key("P99Ms"), `p99 latency, ${who}`, median(side.rounds.map((r) => r.p99Ms)), "ms"),
        figure(key("Non2xx"), `non-2xx answers, ${who} (all rounds)`, sum(side.rounds.map((r) => r.non2xx)), "answers"),
        figure(key("Errors"), `connection errors and timeouts, ${who} (all rounds)`, sum(side.rounds.map((r) => r.errors)), "errors"),
        ...cpu(side, key("CpuMsPerWebhook"), who)
      ]
      return [
        ...figures(hookgate, (name) => `http${name}`, "hookgate serve, Resend stand-in"),
        ...figures(bare, (name) => `baselineHttp${name}`, "node:http + better-sqlite3 + node:crypto, same stand-in"),
        ...figures(effectFloor, (name) => `effectHttpFloor${name}`, "minimal @effect/platform server, same work and stand-in"),
        figure("httpConnections", "autocannon connections (keep-alive, one request at a time each)", CONNECTIONS, "connections")
      ]
    } finally {
      await Promise.all(started.map((s) => stop(s.process)))
      rmSync(dir, { recursive: true, force: true })
    }
  },
  ratios: [
    ["httpWebhooksPerSecond / baselineHttpWebhooksPerSecond", "httpWebhooksPerSecond", "baselineHttpWebhooksPerSecond"],
    ["httpP50Ms / baselineHttpP50Ms", "httpP50Ms", "baselineHttpP50Ms"],
    ["httpP99Ms / baselineHttpP99Ms", "httpP99Ms", "baselineHttpP99Ms"],
    ["httpCpuMsPerWebhook / baselineHttpCpuMsPerWebhook", "httpCpuMsPerWebhook", "baselineHttpCpuMsPerWebhook"],
    ["effectHttpFloorWebhooksPerSecond / baselineHttpWebhooksPerSecond", "effectHttpFloorWebhooksPerSecond", "baselineHttpWebhooksPerSecond"],
    ["effectHttpFloorCpuMsPerWebhook / baselineHttpCpuMsPerWebhook", "effectHttpFloorCpuMsPerWebhook", "baselineHttpCpuMsPerWebhook"],
    ["httpWebhooksPerSecond / effectHttpFloorWebhooksPerSecond", "httpWebhooksPerSecond", "effectHttpFloorWebhooksPerSecond"],
    ["httpCpuMsPerWebhook / effectHttpFloorCpuMsPerWebhook", "httpCpuMsPerWebhook", "effectHttpFloorCpuMsPerWebhook"]
  ]
}
