import { type ChildProcess, execFileSync, fork, spawn } from "node:child_process"
import { once } from "node:events"
import { readFileSync } from "node:fs"
import type { Readable } from "node:stream"
import { fileURLToPath } from "node:url"
import { join } from "node:path"
import type { BaselineServerOptions } from "./http-baseline-server.js"
import type { ResendChildMessage } from "./http-resend-child.js"

/**
 * The HTTP suite's processes: the gateway (`hookgate serve`), the baseline
 * server and the Resend stand-in, each in a process of its own on a free
 * loopback port. Every child is stopped by `stop` (SIGTERM, SIGKILL after 15 s)
 * and, should the bench itself exit first, killed on its way out.
 */

const live = new Set<ChildProcess>()
process.on("exit", () => {
  for (const child of live) child.kill("SIGKILL")
})

const track = (child: ChildProcess) => {
  live.add(child)
  child.once("exit", () => live.delete(child))
  return child
}

export const stop = async (child: ChildProcess) => {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = once(child, "exit")
  child.kill("SIGTERM")
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000)
  await exited
  clearTimeout(timer)
}

/** The last few KB a stream wrote, for the error when a child fails to start. */
const tail = (stream: Readable) => {
  let text = ""
  stream.on("data", (chunk: Buffer) => (text = (text + chunk.toString()).slice(-4000)))
  return () => text
}

/** The first match of `pattern` in what `stream` writes; fails if the child exits or `ms` pass first. */
const firstMatch = (child: ChildProcess, stream: Readable, pattern: RegExp, ms: number, what: string) => {
  const output = tail(stream)
  return new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start within ${ms / 1000} s:\n${output()}`)), ms)
    const onData = () => {
      const match = pattern.exec(output())
      if (match) {
        clearTimeout(timer)
        stream.off("data", onData)
        resolve(match)
      }
    }
    stream.on("data", onData)
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`${what} exited (${code}) before it was ready:\n${output()}`))
    })
  })
}

export interface Started {
  readonly url: string
  readonly process: ChildProcess
}

const hookgateBin = fileURLToPath(new URL("../../../packages/node/bin/hookgate.js", import.meta.url))

/** Settings from the bench's own environment that would change the gateway under test. */
const OURS = /^(HOOKGATE_|RESEND_|STRIPE_|CREEM_|PORT$|HOST$)/

export interface GatewaySettings {
  readonly db: string
  readonly stripeSecret: string
  readonly resendUrl: string
  readonly resendApiKey: string
  readonly from: string
}

/**
 * How a child is run: `node`, the command line that stands for `node` (e.g. valgrind
 * followed by node, or node with `--cpu-prof`); `startMs`, how long it may take to listen;
 * `env`, settings added to the gateway's.
 */
export interface Launch {
  readonly node?: ReadonlyArray<string>
  readonly startMs?: number
  readonly env?: Readonly<Record<string, string>>
}

const launched = (launch: Launch, args: ReadonlyArray<string>): [string, Array<string>] => {
  const [command, ...prefix] = launch.node ?? [process.execPath]
  return [command!, [...prefix, ...args]]
}

/**
 * `hookgate serve` on a free port of 127.0.0.1 with the Resend mailer, ready once `/healthz` answers 200;
 * `checkout`, the root of another built checkout whose gateway to run instead of this one's.
 */
export const startGateway = async (settings: GatewaySettings, launch: Launch = {}, checkout?: string): Promise<Started> => {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !OURS.test(name)))
  const bin = checkout === undefined ? hookgateBin : join(checkout, "packages", "node", "bin", "hookgate.js")
  const child = track(spawn(...launched(launch, [bin, "serve"]), {
    // stdout carries one JSON log line per webhook: discarded, as a log shipper would take it away.
    stdio: ["ignore", "ignore", "pipe"],
    env: {
      ...env,
      HOST: "127.0.0.1",
      PORT: "0",
      HOOKGATE_DB: settings.db,
      HOOKGATE_MAILER: "resend",
      RESEND_API_KEY: settings.resendApiKey,
      RESEND_BASE_URL: settings.resendUrl,
      HOOKGATE_FROM: settings.from,
      STRIPE_WEBHOOK_SECRET: settings.stripeSecret,
      HOOKGATE_SHUTDOWN_GRACE: "1 second",
      ...launch.env
    }
  }))
  try {
    const [, url] = await firstMatch(child, child.stderr!, /listening on (http:\/\/\S+)/, launch.startMs ?? 60_000, "hookgate serve")
    const deadline = Date.now() + (launch.startMs ?? 30_000)
    for (;;) {
      const status = await fetch(`${url}/healthz`).then((r) => r.status, () => 0)
      if (status === 200) return { url: url!, process: child }
      if (Date.now() > deadline) throw new Error(`hookgate serve: /healthz answered ${status} for 30 s`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  } catch (error) {
    await stop(child)
    throw error
  }
}

const baselineChild = fileURLToPath(new URL("./http-baseline-child.js", import.meta.url))
const effectFloorChild = fileURLToPath(new URL("./http-effect-floor-child.js", import.meta.url))

/** The node:http baseline, or with `effectFloor` the @effect/platform floor, doing the same work. */
export const startBaseline = async (options: BaselineServerOptions, effectFloor = false, launch: Launch = {}): Promise<Started> => {
  const child = track(spawn(...launched(launch, [effectFloor ? effectFloorChild : baselineChild, JSON.stringify(options)]), { stdio: ["ignore", "pipe", "inherit"] }))
  try {
    const [, url] = await firstMatch(child, child.stdout!, /listening (http:\/\/\S+)/, launch.startMs ?? 30_000, effectFloor ? "the Effect floor server" : "the baseline server")
    return { url: url!, process: child }
  } catch (error) {
    await stop(child)
    throw error
  }
}

const resendChild = fileURLToPath(new URL("./http-resend-child.js", import.meta.url))

export interface ResendStandIn extends Started {
  readonly apiKey: string
  /** Accepted emails whose idempotency key contains each substring, and the requests it refused. */
  readonly counts: (parts: ReadonlyArray<string>) => Promise<{ readonly counts: ReadonlyArray<number>; readonly refused: number }>
}

export const startResend = async (): Promise<ResendStandIn> => {
  const child = track(fork(resendChild, [], { stdio: ["ignore", "inherit", "inherit", "ipc"] }))
  try {
    const [first] = (await Promise.race([
      once(child, "message"),
      once(child, "exit").then(([code]) => Promise.reject(new Error(`the Resend stand-in exited (${code}) before it was ready`)))
    ])) as [ResendChildMessage]
    if (!("url" in first)) throw new Error("the Resend stand-in did not send its address")
    return {
      url: first.url,
      apiKey: first.apiKey,
      process: child,
      counts: async (parts) => {
        const answer = once(child, "message")
        child.send({ count: parts })
        const [message] = (await answer) as [ResendChildMessage]
        if (!("counts" in message)) throw new Error("the Resend stand-in answered out of turn")
        return message
      }
    }
  } catch (error) {
    await stop(child)
    throw error
  }
}

const ticksPerSecond = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100
  } catch {
    return 100
  }
})()

/**
 * CPU seconds (user + system) a process has used so far, from /proc on Linux;
 * undefined elsewhere. On a shared machine this moves far less with the load
 * than throughput does.
 */
export const cpuSeconds = (child: ChildProcess): number | undefined => {
  try {
    const stat = readFileSync(`/proc/${child.pid}/stat`, "utf8")
    // Fields after the command name (which may hold spaces) start at "state": utime and stime are 12th and 13th from there.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond
  } catch {
    return undefined
  }
}

const BENCH_FROM = "hookgate bench <orders@bench.hookgate.localhost>"

/** The servers an HTTP suite compares, over one Resend stand-in: `hookgate serve`, the bare baseline, and (optionally) the minimal Effect floor, each on its own database in `dir`. */
export interface BenchServers {
  readonly started: Array<Started>
  readonly resend: ResendStandIn
  readonly gateway: Started
  readonly gatewayDb: string
  readonly baseline: Started
  readonly baselineDb: string
  readonly floor?: Started
  readonly floorDb: string
}

/** The mail settings every bench server gets: the stand-in's URL and key, one sender. */
export const benchMail = (resend: ResendStandIn) => ({ resendUrl: resend.url, resendApiKey: resend.apiKey, from: BENCH_FROM })

/** Starts them in order, pushing each to `started` as it comes up (so the caller's `finally` stops what did start). */
export async function startBenchServers(dir: string, stripeSecret: string, started: Array<Started>, withFloor: true): Promise<BenchServers & { readonly floor: Started }>
export async function startBenchServers(dir: string, stripeSecret: string, started: Array<Started>, withFloor: false): Promise<BenchServers>
export async function startBenchServers(dir: string, stripeSecret: string, started: Array<Started>, withFloor: boolean): Promise<BenchServers> {
  const resend = await startResend()
  started.push(resend)
  const mail = benchMail(resend)
  const gatewayDb = join(dir, "gateway", "hookgate.db")
  const baselineDb = join(dir, "baseline.db")
  const floorDb = join(dir, "effect-floor.db")
  const gateway = await startGateway({ db: gatewayDb, stripeSecret, ...mail })
  started.push(gateway)
  const baseline = await startBaseline({ filename: baselineDb, stripeSecret, ...mail })
  started.push(baseline)
  const floor = withFloor ? await startBaseline({ filename: floorDb, stripeSecret, ...mail }, true) : undefined
  if (floor !== undefined) started.push(floor)
  return { started, resend, gateway, gatewayDb, baseline, baselineDb, floorDb, ...(floor === undefined ? {} : { floor }) }
}
