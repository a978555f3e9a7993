import { execFileSync, spawn } from "node:child_process"
import { once } from "node:events"
import { randomBytes } from "node:crypto"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parseArgs } from "node:util"
import { median } from "./lib.js"
import { driveRound } from "./suites/http-load.js"
import { benchMail, cpuSeconds, type Launch, type Started, startBaseline, startGateway, startResend, stop } from "./suites/http-processes.js"

/**
 * `node bench/dist/http-cpu.js [--callgrind] [--rounds R] [--webhooks N] [--warmup W] [--connections C] [--servers hookgate,floor,baseline] …`
 *
 * The HTTP suite's cost per webhook in a form a shared machine does not distort:
 * `hookgate serve` and the minimal @effect/platform server doing the same work
 * (the suite's Effect floor), and the node:http baseline if named in --servers, each get
 * a warm-up of W webhooks, then R rounds of exactly N webhooks each (C keep-alive
 * connections, the order of the servers rotating), one server at a time. Per round:
 * - by default, the server process's CPU time (user + system, /proc) per webhook;
 * - with --callgrind, the instructions the server process executed per webhook,
 *   counted by valgrind's callgrind (instrumentation on only around the N webhooks,
 *   so the warm-up and the start run at a few times native speed). A loaded machine
 *   does not move this count; it runs at about 1/50 of native speed.
 * Medians are printed, and the ratio of hookgate's to the floor's.
 * With --profile DIR, the servers run with `node --cpu-prof` writing into DIR on exit;
 * each --node-arg ARG is given to the servers' node (e.g. `--import=counters.mjs`), and
 * --mark-signal SIG is sent to a server right before and after each of its measured
 * rounds (for such a preload to take its counts). With --perf DIR, `perf record -e cpu-clock`
 * samples each measured round of each server on the CPU (not while it waits, as a
 * wall-clock profiler on a shared machine would) into DIR/<server>-<round>.data, the
 * servers' JavaScript named through `node --perf-basic-prof`; read one with `perf report -i`.
 * With --compare DIR, a fourth server `compare` is `hookgate serve` of another built checkout
 * (e.g. an earlier commit, `git archive` + `npx tsc -b`): name it in --servers to measure a
 * change side by side with what it changed.
 */

const { values } = parseArgs({
  options: {
    callgrind: { type: "boolean", default: false },
    servers: { type: "string", default: "hookgate,floor" },
    rounds: { type: "string" },
    webhooks: { type: "string" },
    warmup: { type: "string" },
    connections: { type: "string", default: "8" },
    profile: { type: "string" },
    "node-arg": { type: "string", multiple: true, default: [] },
    "mark-signal": { type: "string" },
    perf: { type: "string" },
    compare: { type: "string" }
  }
})
const callgrind = values.callgrind!
const rounds = Number(values.rounds ?? (callgrind ? 1 : 6))
const webhooks = Number(values.webhooks ?? (callgrind ? 1000 : 2000))
const warmup = Number(values.warmup ?? 2000)
const connections = Number(values.connections)

interface Side {
  readonly name: string
  readonly prefix: string
  readonly server: Started
  readonly perWebhook: Array<number>
  /** Per round, the share of the CPU time spent in the kernel. */
  readonly system: Array<number>
}

/** User and system clock ticks of a server process so far. */
const userAndSystem = (side: Side) => {
  const stat = readFileSync(`/proc/${side.server.process.pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return [Number(fields[11]), Number(fields[12])] as const
}

/** The `summary:` (or `totals:`) line of a callgrind output file: instructions executed. */
const instructionsIn = (file: string) => {
  const lines = readFileSync(file, "utf8").split("\n")
  const line = lines.find((l) => l.startsWith("summary:")) ?? lines.find((l) => l.startsWith("totals:"))
  if (line === undefined) throw new Error(`no summary in ${file}`)
  return Number(line.split(":")[1]!.trim().split(" ")[0])
}

/**
 * vgdb names its pipes after the HOST, USER and LOGNAME of the process it talks to
 * (the gateway gets HOST=127.0.0.1): callgrind_control must use the same.
 */
const namingEnv = (pid: number) => {
  const env = Object.fromEntries(readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]))
  const ours: Record<string, string | undefined> = { ...process.env }
  for (const name of ["HOST", "USER", "LOGNAME"]) {
    if (env[name] === undefined) delete ours[name]
    else ours[name] = env[name]
  }
  return ours
}

/** Starts `perf record` on `pid`; the answer stops it and waits until the file is written. */
const perfRecord = async (pid: number, file: string) => {
  const perf = spawn("perf", ["record", "-e", "cpu-clock", "-F", "1999", "-g", "-p", String(pid), "-o", file], { stdio: ["ignore", "ignore", "pipe"] })
  await new Promise((resolve) => setTimeout(resolve, 500))
  return async () => {
    const exited = once(perf, "exit")
    perf.kill("SIGINT")
    await exited
  }
}

const main = async () => {
  const dir = mkdtempSync(join(tmpdir(), "hookgate-http-cpu-"))
  const cgDir = join(dir, "callgrind")
  mkdirSync(cgDir)
  const secret = `whsec_bench_${randomBytes(12).toString("hex")}`
  const launch: Launch = callgrind
    ? {
      node: ["valgrind", "--tool=callgrind", "--instr-atstart=no", `--callgrind-out-file=${cgDir}/%p.cg`, process.execPath],
      startMs: 600_000,
      // At a fiftieth of native speed, no deadline may cut a webhook short (none changes its path).
      env: {
        HOOKGATE_HEADERS_TIMEOUT: "10 minutes",
        HOOKGATE_REQUEST_TIMEOUT: "10 minutes",
        HOOKGATE_SEND_TIMEOUT: "4 minutes",
        HOOKGATE_DB_BUSY_TIMEOUT: "1 minute",
        RESEND_TIMEOUT: "4 minutes"
      }
    }
    : {
      node: [
        process.execPath,
        ...(values.profile === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${values.profile}`]),
        ...(values.perf === undefined ? [] : ["--perf-basic-prof"]),
        ...values["node-arg"]!
      ]
    }
  const started: Array<Started> = []
  try {
    const resend = await startResend()
    started.push(resend)
    const mail = benchMail(resend)
    const sides: Array<Side> = []
    const starters: Record<string, readonly [string, () => Promise<Started>]> = {
      hookgate: ["hg", () => startGateway({ db: join(dir, "gateway", "hookgate.db"), stripeSecret: secret, ...mail }, launch)],
      compare: ["cm", () => {
        if (values.compare === undefined) throw new Error("--servers compare needs --compare DIR")
        return startGateway({ db: join(dir, "compare", "hookgate.db"), stripeSecret: secret, ...mail }, launch, values.compare)
      }],
      floor: ["ef", () => startBaseline({ filename: join(dir, "floor.db"), stripeSecret: secret, ...mail }, true, launch)],
      baseline: ["bl", () => startBaseline({ filename: join(dir, "baseline.db"), stripeSecret: secret, ...mail }, false, launch)]
    }
    for (const name of values.servers!.split(",")) {
      const starter = starters[name]
      if (starter === undefined) throw new Error(`--servers: no server ${name} (hookgate, compare, floor, baseline)`)
      const server = await starter[1]()
      started.push(server)
      sides.push({ name, prefix: starter[0], server, perWebhook: [], system: [] })
    }

    const drive = async (side: Side, tag: string, amount: number) => {
      const result = await driveRound({
        url: side.server.url,
        stripeSecret: secret,
        prefix: `${side.prefix}${tag}_`,
        seconds: 3600,
        amount,
        connections,
        timeoutSeconds: callgrind ? 600 : 30
      })
      if (result.okKeys.length !== amount) {
        console.log(`  ${side.name}: ${result.okKeys.length} of ${amount} webhooks answered 2xx (non-2xx ${result.non2xx}, errors ${result.errors})`)
      }
      return result
    }
    const control = (side: Side, ...args: ReadonlyArray<string>) =>
      execFileSync("callgrind_control", [...args, String(side.server.process.pid)], {
        stdio: ["ignore", "ignore", "inherit"],
        env: namingEnv(side.server.process.pid!)
      })
    // callgrind writes a dump when the process next runs: wait for it (a minute at most).
    const dumped = async (file: string) => {
      for (let i = 0; i < 600 && !existsSync(file); i++) await new Promise((resolve) => setTimeout(resolve, 100))
      await new Promise((resolve) => setTimeout(resolve, 500))
      return file
    }
    const dumps = new Map<Side, number>()

    const measured = async (side: Side, tag: string) => {
      if (callgrind) {
        control(side, "--instr=on")
        control(side, "--zero")
        await drive(side, tag, webhooks)
        control(side, "--dump")
        control(side, "--instr=off")
        const n = (dumps.get(side) ?? 0) + 1
        dumps.set(side, n)
        return instructionsIn(await dumped(join(cgDir, `${side.server.process.pid}.cg.${n}`))) / webhooks
      }
      const mark = () => values["mark-signal"] !== undefined && side.server.process.kill(values["mark-signal"] as NodeJS.Signals)
      mark()
      const perf = values.perf === undefined ? undefined : await perfRecord(side.server.process.pid!, join(values.perf, `${side.name}-${tag}.data`))
      const before = cpuSeconds(side.server.process)
      const [userBefore, systemBefore] = userAndSystem(side)
      await drive(side, tag, webhooks)
      const after = cpuSeconds(side.server.process)
      const [userAfter, systemAfter] = userAndSystem(side)
      await perf?.()
      mark()
      if (before === undefined || after === undefined) throw new Error("no /proc CPU time here (Linux only)")
      side.system.push((systemAfter - systemBefore) / (userAfter - userBefore + systemAfter - systemBefore))
      return ((after - before) * 1000) / webhooks
    }

    const unit = callgrind ? "instructions/webhook" : "ms CPU/webhook"
    const format = (x: number) => (callgrind ? Math.round(x).toLocaleString("en") : x.toFixed(3))
    console.log(`${connections} connections; warm-up ${warmup} webhooks each, then ${rounds} round(s) of ${webhooks} webhooks per server (${unit})`)
    for (const side of sides) await drive(side, "w", warmup)
    for (let r = 0; r < rounds; r++) {
      for (const side of [...sides.slice(r % sides.length), ...sides.slice(0, r % sides.length)]) {
        const value = await measured(side, String(r))
        side.perWebhook.push(value)
        console.log(`  round ${r} ${side.name.padEnd(8)} ${format(value)}`)
      }
    }
    const floor = sides.find((side) => side.name === "floor")
    const floorMedian = floor === undefined ? undefined : median(floor.perWebhook)
    for (const side of sides) {
      const m = median(side.perWebhook)
      const kernel = side.system.length === 0 ? [] : [`${Math.round(median(side.system) * 100)} % of it in the kernel`]
      const relative = floorMedian === undefined ? [] : [`${(m / floorMedian).toFixed(2)}× the floor`]
      const notes = [...relative, ...kernel]
      console.log(`${side.name.padEnd(8)} median ${format(m)} ${unit}${notes.length === 0 ? "" : `  (${notes.join(", ")})`}`)
    }
  } finally {
    for (const s of [...started].reverse()) await stop(s.process)
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
