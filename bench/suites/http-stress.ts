import type { ChildProcess } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { type BenchSuite, figure } from "../lib.js"
import { checkDelivered } from "./http.js"
import { driveRound, type RoundResult } from "./http-load.js"
import { benchMail, cpuSeconds, type Started, startBenchServers, startGateway, stop } from "./http-processes.js"

/**
 * Issue 29's hostile load: `hookgate serve` and the node:http baseline
 * (http-baseline-server.ts) each under 500 keep-alive connections for 30 s, in the same
 * run and through the same Resend stand-in: webhooks/s answered 2xx, p99 and max latency,
 * requests not answered within 5 s (slow answers, and requests cut at the round's end after waiting that long), and the 503 `busy` answers of the gateway's admission gate.
 * Then the gateway's RSS while a fresh process answers 100,000 webhooks from 500
 * connections, sampled every 10,000, and after 30 s idle. Every order answered 2xx must
 * be stored as sent and have reached the stand-in, or the suite fails.
 *
 * `BENCH_STRESS_QUICK=1` runs it short (10 s rounds, 10,000 webhooks, 15 s idle), for
 * development on a loaded machine; the published figures are the full run's.
 */

const QUICK = process.env.BENCH_STRESS_QUICK === "1"
const CONNECTIONS = 500
const ROUND_SECONDS = QUICK ? 10 : 30
const RSS_WEBHOOKS = QUICK ? 10_000 : 100_000
const RSS_SAMPLES = 10
const IDLE_SECONDS = QUICK ? 15 : 30
// Each server first answers a warm-up at 16 connections (its JIT warm, as a gateway that has run a while).
const WARMUP_SECONDS = QUICK ? 3 : 5
const SLOW_MS = 5000
// Long enough that a slow answer is measured, not given up on (autocannon's default is 10 s).
const TIMEOUT_SECONDS = 120

/** A process's resident set in MB, from /proc (Linux); undefined elsewhere. */
const rssMb = (child: ChildProcess): number | undefined => {
  try {
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))
    return kb === null ? undefined : Number(kb[1]) / 1024
  } catch {
    return undefined
  }
}

/** The machine's load while the suite ran, for reading its absolute figures. */
const loadAverage = () => {
  try {
    return Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0])
  } catch {
    return undefined
  }
}

/**
 * The kernel's TCP counters that would explain a multi-second tail by the listen queue: SYNs
 * dropped on a full accept queue (`ListenOverflows`) and resent by the client after 1, 3, 7 s
 * (`TCPSynRetrans`). Machine-wide, from /proc (Linux); undefined elsewhere.
 */
const tcpCounters = (): { readonly listenOverflows: number; readonly synRetransmits: number } | undefined => {
  try {
    const [names, values] = readFileSync("/proc/net/netstat", "utf8").split("\n").filter((line) => line.startsWith("TcpExt:")).map((line) => line.split(" "))
    const read = (name: string) => Number(values![names!.indexOf(name)])
    return { listenOverflows: read("ListenOverflows"), synRetransmits: read("TCPSynRetrans") }
  } catch {
    return undefined
  }
}

interface Stressed extends RoundResult {
  /** The round's 2xx keys and the warm-up's, all checked as stored and sent. */
  readonly checkedKeys: ReadonlyArray<string>
  readonly cpuMsPerWebhook: number | undefined
  readonly rssMb: number | undefined
}

const stressRound = async (name: string, server: Started, secret: string, prefix: string): Promise<Stressed> => {
  const warmup = await driveRound({ url: server.url, stripeSecret: secret, prefix: `${prefix}w`, seconds: WARMUP_SECONDS, connections: 16 })
  const cpuBefore = cpuSeconds(server.process)
  const tcpBefore = tcpCounters()
  const result = await driveRound({
    url: server.url,
    stripeSecret: secret,
    prefix,
    seconds: ROUND_SECONDS,
    connections: CONNECTIONS,
    timeoutSeconds: TIMEOUT_SECONDS,
    slowMs: SLOW_MS
  })
  const cpuAfter = cpuSeconds(server.process)
  const tcpAfter = tcpCounters()
  const cpuMsPerWebhook = cpuBefore === undefined || cpuAfter === undefined || result.okKeys.length === 0
    ? undefined
    : ((cpuAfter - cpuBefore) * 1000) / result.okKeys.length
  const rss = rssMb(server.process)
  console.log(`  ${name.padEnd(8)} ${Math.round(result.webhooksPerSecond).toString().padStart(6)} webhooks/s  ` +
    `p50 ${result.p50Ms} ms  p99 ${result.p99Ms} ms  max ${result.maxMs} ms  over ${SLOW_MS / 1000} s ${result.slow}  ` +
    `503 busy ${result.busy}  other non-2xx ${result.non2xx - result.busy}  errors ${result.errors}  unanswered at the end ${result.unanswered}` +
    (cpuMsPerWebhook === undefined ? "" : `  CPU ${cpuMsPerWebhook.toFixed(2)} ms/webhook`) +
    (rss === undefined ? "" : `  RSS ${Math.round(rss)} MB`) +
    (tcpBefore === undefined || tcpAfter === undefined ? "" : `  listen overflows +${tcpAfter.listenOverflows - tcpBefore.listenOverflows}` +
      `  SYN retransmits +${tcpAfter.synRetransmits - tcpBefore.synRetransmits} (machine-wide)`))
  return { ...result, checkedKeys: [...warmup.okKeys, ...result.okKeys], cpuMsPerWebhook, rssMb: rss }
}

/** The gateway's RSS after every tenth of `RSS_WEBHOOKS` answered 2xx, then after idling. */
const rssRun = async (gateway: Started, secret: string) => {
  const samples: Array<{ webhooks: number; rssMb: number }> = []
  const okKeys: Array<string> = []
  const chunk = RSS_WEBHOOKS / RSS_SAMPLES
  let attempts = 0
  // Answers other than 2xx (503 busy) are sent again under new keys, until the count is reached.
  while (okKeys.length < RSS_WEBHOOKS && attempts < RSS_SAMPLES * 4) {
    const target = Math.min(RSS_WEBHOOKS, (Math.floor(okKeys.length / chunk) + 1) * chunk)
    const result = await driveRound({
      url: gateway.url,
      stripeSecret: secret,
      prefix: `hgrss${attempts++}_`,
      seconds: 3600,
      amount: Math.max(CONNECTIONS, target - okKeys.length),
      connections: CONNECTIONS,
      timeoutSeconds: TIMEOUT_SECONDS
    })
    okKeys.push(...result.okKeys)
    const rss = rssMb(gateway.process)
    if (rss !== undefined && okKeys.length >= target) {
      samples.push({ webhooks: okKeys.length, rssMb: rss })
      console.log(`  ${okKeys.length.toString().padStart(7)} webhooks answered 2xx: RSS ${Math.round(rss)} MB` +
        `  (${Math.round(result.webhooksPerSecond)} webhooks/s, 503 busy ${result.busy}, max ${result.maxMs} ms)`)
    }
  }
  await sleep(IDLE_SECONDS * 1000)
  const idle = rssMb(gateway.process)
  if (idle !== undefined) console.log(`  after ${IDLE_SECONDS} s idle: RSS ${Math.round(idle)} MB`)
  return { samples, idle, okKeys }
}

export const httpStressSuite: BenchSuite = {
  name: "http-stress",
  run: async () => {
    const dir = mkdtempSync(join(tmpdir(), "hookgate-http-stress-"))
    const secret = `whsec_bench_${randomBytes(12).toString("hex")}`
    const started: Array<Started> = []
    try {
      const { resend, gateway, gatewayDb, baseline, baselineDb } = await startBenchServers(dir, secret, started, false)
      const loadBefore = loadAverage()
      console.log(`  ${CONNECTIONS} keep-alive connections for ${ROUND_SECONDS} s each (after a ${WARMUP_SECONDS} s warm-up at 16), ` +
        `baseline first; load average ${loadBefore ?? "?"}`)
      const bare = await stressRound("baseline", baseline, secret, "blst_")
      const hookgate = await stressRound("hookgate", gateway, secret, "hgst_")
      await stop(gateway.process)
      await stop(baseline.process)

      const rssDb = join(dir, "rss", "hookgate.db")
      const fresh = await startGateway({ db: rssDb, stripeSecret: secret, ...benchMail(resend) })
      started.push(fresh)
      const startRss = rssMb(fresh.process)
      console.log(`  RSS of a fresh hookgate serve answering ${RSS_WEBHOOKS.toLocaleString("en")} webhooks from ${CONNECTIONS} connections: ` +
        `${startRss === undefined ? "?" : Math.round(startRss)} MB at start`)
      const rss = await rssRun(fresh, secret)
      await stop(fresh.process)
      const loadAfter = loadAverage()

      await checkDelivered([
        { name: "hookgate", prefix: "hgst_", db: gatewayDb, okKeys: [...hookgate.checkedKeys] },
        { name: "baseline", prefix: "blst_", db: baselineDb, okKeys: [...bare.checkedKeys] },
        { name: "hookgate (RSS run)", prefix: "hgrss", db: rssDb, okKeys: rss.okKeys }
      ], resend)

      const side = (result: Stressed, key: (name: string) => string, who: string) => [
        figure(key("WebhooksPerSecond"), `webhooks/s answered 2xx at ${CONNECTIONS} connections, ${who} (${ROUND_SECONDS} s)`, result.webhooksPerSecond, "webhooks/s"),
        figure(key("P99Ms"), `p99 latency at ${CONNECTIONS} connections, ${who}`, result.p99Ms, "ms"),
        figure(key("MaxMs"), `max latency at ${CONNECTIONS} connections, ${who}`, result.maxMs, "ms"),
        figure(key("Over5s"), `requests not answered within ${SLOW_MS / 1000} s at ${CONNECTIONS} connections, ${who} (slow answers, and requests still waiting that long when the round ended)`, result.slow, "requests"),
        figure(key("Busy"), `503 busy answers at ${CONNECTIONS} connections, ${who}`, result.busy, "answers"),
        ...(result.rssMb === undefined ? [] : [figure(key("RssMb"), `RSS after the ${CONNECTIONS}-connection round, ${who}`, result.rssMb, "MB")])
      ]
      const first = rss.samples[0]
      const last = rss.samples.at(-1)
      const peak = Math.max(...rss.samples.map((s) => s.rssMb))
      // One sample catches the heap anywhere between two collections: compare the peaks of the
      // two halves of the run, which grow with the run only if something is kept.
      const half = Math.ceil(rss.samples.length / 2)
      const peakOf = (samples: ReadonlyArray<{ rssMb: number }>) => Math.max(...samples.map((s) => s.rssMb))
      return [
        ...side(hookgate, (name) => `stress${name}`, "hookgate serve"),
        ...side(bare, (name) => `baselineStress${name}`, "node:http + better-sqlite3 + node:crypto"),
        ...(first === undefined || last === undefined ? [] : [
          figure("stressRssAfterFirstTenthMb", `hookgate serve RSS after ${first.webhooks.toLocaleString("en")} webhooks`, first.rssMb, "MB"),
          figure("stressRssAfterAllMb", `hookgate serve RSS after ${last.webhooks.toLocaleString("en")} webhooks`, last.rssMb, "MB"),
          figure("stressRssPeakMb", "hookgate serve peak RSS among the samples", peak, "MB"),
          figure("stressRssPeakGrowthMb", "RSS: peak of the second half of the samples minus the first half's", peakOf(rss.samples.slice(half)) - peakOf(rss.samples.slice(0, half)), "MB")
        ]),
        ...(rss.idle === undefined ? [] : [figure("stressRssIdleMb", `hookgate serve RSS after ${IDLE_SECONDS} s idle`, rss.idle, "MB")]),
        ...(loadBefore === undefined || loadAfter === undefined ? [] : [
          figure("stressLoadAverage", "the machine's 1-minute load average, before and after (mean)", (loadBefore + loadAfter) / 2, "")
        ])
      ]
    } finally {
      await Promise.all(started.map((s) => stop(s.process)))
      rmSync(dir, { recursive: true, force: true })
    }
  },
  ratios: [
    ["stressWebhooksPerSecond / baselineStressWebhooksPerSecond", "stressWebhooksPerSecond", "baselineStressWebhooksPerSecond"],
    ["stressP99Ms / baselineStressP99Ms", "stressP99Ms", "baselineStressP99Ms"],
    ["stressMaxMs / baselineStressMaxMs", "stressMaxMs", "baselineStressMaxMs"]
  ]
}
