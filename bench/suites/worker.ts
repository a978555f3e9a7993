import { checkoutSessionEvent } from "@hookgate/provider-stripe/testing"
import { Miniflare, NoOpLog, type WorkerOptions } from "miniflare"
import { execFile } from "node:child_process"
import { createHmac } from "node:crypto"
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Readable } from "node:stream"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { gzipSync } from "node:zlib"
import { unstable_getMiniflareWorkerOptions } from "wrangler"
import { type BenchSuite, figure, median } from "../lib.js"
import { bundleEffectWorker, bundleExampleWorker, wranglerConfig } from "./worker/bundle.js"
import { callgrindWorkerd, moduleCompileInstructions, moduleEvalInstructions, valgrindWanted } from "./worker/instructions.js"
import { childPids, processCpuMs, processCpuMsPrecise } from "./worker/process-cpu.js"

/**
 * Issue 15's CPU figures: the example Worker, bundled as `wrangler deploy` bundles
 * it (its wrangler.jsonc, the packages' built `dist`), beside a Worker written by
 * hand doing the same work (bench/suites/worker/handwritten.ts: Web Crypto HMAC,
 * D1 insert and update, the `send_email` binding). Both run in workerd through
 * Miniflare, with local D1 and the real `send_email` binding; what is measured is
 * the CPU of the workerd process (user + system, so the local D1 and the binding
 * count too, alike for both).
 *
 * - Warm: `ROUNDS` rounds of `PER_ROUND` signed Stripe webhooks, one at a time,
 *   each a new paid order, the two Workers alternating round by round in one
 *   workerd after a warm-up; the median round's CPU per webhook
 *   (/proc/<pid>/stat, utime + stime).
 * - First request: a fresh workerd per sample with one of the Workers (alternating),
 *   D1 already migrated and its simulator warmed from outside the Worker; the CPU of
 *   the first webhook, median of `FIRST_SAMPLES` (per-thread schedstat, in ns,
 *   since the figure is a few ticks of stat).
 * - Start-up: the same workerd's CPU from spawn to ready, which includes
 *   compiling and evaluating the Worker's global scope.
 * - Module evaluation: `import()` of the bundle in a fresh Node process, median of
 *   `EVAL_SAMPLES` (Node's V8, not workerd's: the global scope alone, precisely).
 *
 * A third Worker, the same work written with Effect and nothing else
 * (bench/suites/worker/minimal-effect.ts), runs beside them, measured alike: the
 * floor Effect itself sets for start-up and per webhook.
 *
 * A fourth Worker runs beside them, measured alike: the platform floor
 * (bench/suites/worker/platform-floor.ts), the minimal Worker's work routed by
 * @effect/platform's HttpRouter and run on @effect/sql-d1's D1Client, its layer built
 * per isolate, as hookgate's libraries do it: what of the example's cost is those
 * libraries' own, and what is hookgate's.
 *
 * The two cold figures are also counted in instructions (valgrind's callgrind,
 * worker/instructions.ts), which a loaded machine does not move: the first webhook
 * of a fresh isolate in a workerd run under callgrind, and the bundle's `import()`
 * in Node, each less an empty module's; and each bundle's compile alone (parsed, not
 * evaluated), which sets how low its `import()` could go. Skipped without valgrind
 * on PATH or with BENCH_WORKER_VALGRIND=0. The hand-written Worker is not counted.
 */

const PER_ROUND = 100
const ROUNDS = 20
const WARMUP = 50
const FIRST_SAMPLES = 5
const EVAL_SAMPLES = 7

const STRIPE_SECRET = "whsec_bench_worker_5f1c0a7e2b9d4c68"
const HANDWRITTEN_SCHEMA =
  "CREATE TABLE IF NOT EXISTS handwritten_orders (order_key TEXT PRIMARY KEY, email TEXT NOT NULL, status TEXT NOT NULL, created_at INTEGER NOT NULL, sent_at INTEGER)"

const handwrittenPath = fileURLToPath(new URL("./worker/handwritten.js", import.meta.url))
const evalChild = fileURLToPath(new URL("./worker/eval-child.js", import.meta.url))

/** A paid Checkout Session for `sessionId`, signed as Stripe signs it (now). */
const signedWebhook = (sessionId: string) => {
  const body = checkoutSessionEvent(`evt_${sessionId}`, "checkout.session.completed", {
    id: sessionId,
    email: "buyer@example.com",
    amountTotal: 1900,
    currency: "usd"
  })
  const t = Math.floor(Date.now() / 1000)
  const v1 = createHmac("sha256", STRIPE_SECRET).update(`${t}.${body}`).digest("hex")
  return { body, headers: { "content-type": "application/json", "stripe-signature": `t=${t},v1=${v1}` } }
}

type Kind = "example" | "handwritten" | "minimal" | "floor"
/** The Workers counted in instructions. */
type CountedKind = Exclude<Kind, "handwritten">
const KINDS: ReadonlyArray<Kind> = ["example", "handwritten", "minimal", "floor"]
const perKind = <A>(make: () => A): Record<Kind, A> => ({ example: make(), handwritten: make(), minimal: make(), floor: make() })
/** The Workers in the order of `round`: rotated, so none always runs first. */
const rotated = (round: number) => KINDS.map((_, i) => KINDS[(i + round) % KINDS.length]!)

/** The Miniflare options of the Workers: each its own D1 database and the `send_email` binding EMAIL. */
const workerOptions = (bundles: Bundles): Record<Kind, WorkerOptions> => {
  const { workerOptions: example } = unstable_getMiniflareWorkerOptions(wranglerConfig)
  /** A Worker of the suite's own, one module, on the `handwritten_orders` table. */
  const ownWorker = (name: Exclude<Kind, "example">, path: string, contents: string): WorkerOptions => ({
    name,
    compatibilityDate: example.compatibilityDate!,
    modules: [{ type: "ESModule", path, contents }],
    bindings: { STRIPE_WEBHOOK_SECRET: STRIPE_SECRET },
    d1Databases: { DB: `bench-${name}` },
    email: { send_email: [{ name: "EMAIL" }] }
  })
  return {
    example: {
      ...example,
      name: "example",
      modules: [{ type: "ESModule", path: "index.js", contents: bundles.example.contents }],
      modulesRules: undefined,
      bindings: { ...example.bindings, STRIPE_WEBHOOK_SECRET: STRIPE_SECRET },
      d1Databases: { DB: "bench-example" }
    } as WorkerOptions,
    handwritten: ownWorker("handwritten", "handwritten.js", readFileSync(handwrittenPath, "utf8")),
    minimal: ownWorker("minimal", "minimal.js", bundles.minimal.contents),
    floor: ownWorker("floor", "floor.js", bundles.floor.contents)
  }
}

/**
 * A workerd of its own running `kinds`, on the D1 files in `persist`, and its pid;
 * `runtime` names another workerd binary (or script) and its process name.
 */
const startWorkerd = async (
  options: Record<Kind, WorkerOptions>,
  kinds: ReadonlyArray<Kind>,
  persist: string,
  runtime?: { readonly path: string; readonly comm: string }
) => {
  const comm = runtime?.comm ?? "workerd"
  const before = new Set(childPids(comm))
  // Miniflare reads MINIFLARE_WORKERD_PATH when it spawns workerd.
  const previousPath = process.env.MINIFLARE_WORKERD_PATH
  if (runtime !== undefined) process.env.MINIFLARE_WORKERD_PATH = runtime.path
  const mf = new Miniflare({
    log: new NoOpLog(),
    // The Workers' log lines, read and dropped.
    handleRuntimeStdio: (stdout: Readable, stderr: Readable) => {
      stdout.resume()
      stderr.resume()
    },
    d1Persist: persist,
    workers: kinds.map((kind) => options[kind])
  })
  try {
    await mf.ready
  } finally {
    if (previousPath === undefined) delete process.env.MINIFLARE_WORKERD_PATH
    else process.env.MINIFLARE_WORKERD_PATH = previousPath
  }
  const pid = childPids(comm).find((p) => !before.has(p))
  if (pid === undefined) throw new Error("workerd's pid not found")
  const post = async (kind: Kind, sessionId: string) => {
    const webhook = signedWebhook(sessionId)
    const worker = await mf.getWorker(options[kind].name!)
    const response = await worker.fetch("https://shop.example/webhooks/stripe", { method: "POST", ...webhook })
    const answer = (await response.json()) as { status?: string }
    if (answer.status !== "sent") throw new Error(`${kind}: ${response.status} ${JSON.stringify(answer)}`)
  }
  const db = (kind: Kind) => mf.getD1Database("DB", options[kind].name!)
  return { mf, pid, post, db }
}

let sessions = 0
const nextSession = (kind: Kind) => `cs_bench_${kind}_${process.pid}_${++sessions}`

/** Warm CPU per webhook of each Worker: rounds rotating in one workerd, medians. */
const warm = async (options: Record<Kind, WorkerOptions>, persist: string) => {
  const workerd = await startWorkerd(options, KINDS, persist)
  try {
    await (await workerd.db("handwritten")).exec(HANDWRITTEN_SCHEMA)
    await (await workerd.db("minimal")).exec(HANDWRITTEN_SCHEMA)
    await (await workerd.db("floor")).exec(HANDWRITTEN_SCHEMA)
    for (const kind of KINDS) for (let i = 0; i < WARMUP; i++) await workerd.post(kind, nextSession(kind))
    const perWebhook = perKind((): Array<number> => [])
    for (let round = 0; round < ROUNDS; round++) {
      for (const kind of rotated(round)) {
        const before = processCpuMs(workerd.pid)
        for (let i = 0; i < PER_ROUND; i++) await workerd.post(kind, nextSession(kind))
        perWebhook[kind].push((processCpuMs(workerd.pid) - before) / PER_ROUND)
      }
    }
    // Each round runs every Worker back to back: a round's ratio is untouched by the
    // machine's speed drifting between rounds, which a ratio of medians is not.
    const roundRatios = perWebhook.example.map((example, round) => example / perWebhook.handwritten[round]!)
    return { perWebhook: medians(perWebhook), roundRatio: median(roundRatios) }
  } finally {
    await workerd.mf.dispose()
  }
}

/** The first webhook of a fresh isolate, and the workerd's start-up, each Worker in a workerd of its own. */
const firstRequests = async (options: Record<Kind, WorkerOptions>, persist: string) => {
  const first = perKind((): Array<number> => [])
  const startup = perKind((): Array<number> => [])
  for (let sample = 0; sample < FIRST_SAMPLES; sample++) {
    for (const kind of rotated(sample)) {
      const workerd = await startWorkerd(options, [kind], persist)
      try {
        startup[kind].push(processCpuMsPrecise(workerd.pid))
        // The local D1 simulator's own first query, from outside the Worker's isolate.
        await (await workerd.db(kind)).prepare("SELECT 1").first()
        await new Promise((resolve) => setTimeout(resolve, 100))
        const before = processCpuMsPrecise(workerd.pid)
        await workerd.post(kind, nextSession(kind))
        first[kind].push(processCpuMsPrecise(workerd.pid) - before)
      } finally {
        await workerd.mf.dispose()
      }
    }
  }
  return { first: medians(first), startup: medians(startup) }
}

/**
 * The instructions of a fresh isolate's first webhook, the example's, the minimal
 * Effect Worker's and the platform floor's, each in a workerd of its own under
 * callgrind, once (a count does not drift as time does), on the D1 files `prepare`
 * (and, in the whole suite, the warm run) made ready.
 */
const firstRequestInstructions = async (options: Record<Kind, WorkerOptions>, persist: string) => {
  const callgrind = callgrindWorkerd()
  try {
    const count = async (kind: CountedKind) => {
      const workerd = await startWorkerd(options, [kind], persist, callgrind)
      try {
        await (await workerd.db(kind)).prepare("SELECT 1").first()
        return await callgrind.count(workerd.pid, () => workerd.post(kind, nextSession(kind)))
      } finally {
        await workerd.mf.dispose()
      }
    }
    return { example: await count("example"), minimal: await count("minimal"), floor: await count("floor") }
  } finally {
    callgrind.dispose()
  }
}

/**
 * Readies the D1 databases of `kinds` for the counted first webhooks, in a workerd of
 * their own: the `handwritten_orders` table made (the example migrates its own) and
 * one webhook each, as the warm run readies the others.
 */
const prepare = async (options: Record<Kind, WorkerOptions>, kinds: ReadonlyArray<CountedKind>, persist: string) => {
  if (kinds.length === 0) return
  const workerd = await startWorkerd(options, kinds, persist)
  try {
    for (const kind of kinds) {
      if (kind !== "example") await (await workerd.db(kind)).exec(HANDWRITTEN_SCHEMA)
      await workerd.post(kind, nextSession(kind))
    }
  } finally {
    await workerd.mf.dispose()
  }
}

/**
 * The instruction counts (first webhook, module evaluation, and the bundles' compile
 * alone), once the databases of `unready` are ready; a failure
 * (workerd timing out under valgrind on a busy machine) is reported, not thrown.
 */
const counted = async (
  options: Record<Kind, WorkerOptions>,
  persist: string,
  paths: Record<CountedKind, string>,
  unready: ReadonlyArray<CountedKind>
) => {
  try {
    await prepare(options, unready, persist)
    return {
      first: await firstRequestInstructions(options, persist),
      eval: await moduleEvalInstructions({ example: paths.example, minimal: paths.minimal, floor: paths.floor }),
      compile: await moduleCompileInstructions({ example: paths.example, minimal: paths.minimal, floor: paths.floor })
    }
  } catch (error) {
    console.log(`  (no instruction counts: ${error instanceof Error ? error.message : String(error)})`)
    return undefined
  }
}

const medians = (samples: Record<Kind, ReadonlyArray<number>>): Record<Kind, number> => ({
  example: median(samples.example),
  handwritten: median(samples.handwritten),
  minimal: median(samples.minimal),
  floor: median(samples.floor)
})

/** `import()` of each bundle in a fresh Node process, alternating, medians. */
const moduleEval = async (paths: Record<Kind, string>) => {
  const ms = perKind((): Array<number> => [])
  for (let sample = 0; sample < EVAL_SAMPLES; sample++) {
    for (const kind of rotated(sample)) {
      const { stdout } = await promisify(execFile)(process.execPath, [evalChild, paths[kind]])
      ms[kind].push((JSON.parse(stdout.trim().split("\n").at(-1)!) as { ms: number }).ms)
    }
  }
  return medians(ms)
}

/** The bundles: the example's as `wrangler deploy` writes it, the minimal Effect Worker's and the platform floor's beside it. */
const bundled = async () => {
  const example = await bundleExampleWorker()
  return {
    example,
    minimal: await bundleEffectWorker("minimal-effect", example.outdir),
    floor: await bundleEffectWorker("platform-floor", example.outdir)
  }
}
type Bundles = Awaited<ReturnType<typeof bundled>>

/**
 * Each Worker's module for `import()` in Node: the hand-written one as tsc wrote it,
 * the bundles as .mjs copies (Node would otherwise first try a bundle as CommonJS: no
 * package.json says "module").
 */
const importPaths = (bundles: Bundles): Record<Kind, string> => {
  const asMjs = (path: string) => {
    const copy = path.replace(/\.js$/, ".mjs")
    copyFileSync(path, copy)
    return copy
  }
  return {
    example: asMjs(bundles.example.path),
    handwritten: handwrittenPath,
    minimal: asMjs(bundles.minimal.path),
    floor: asMjs(bundles.floor.path)
  }
}

/** The bundles' sizes, in the whole suite and the instructions-only run alike. */
const bundleFigures = (bundles: Bundles) => [
  figure("workerBundleBytes", "example bundle, as wrangler deploy writes it", Buffer.byteLength(bundles.example.contents), "bytes"),
  figure("minimalEffectWorkerBundleBytes", "minimal Effect Worker bundle", Buffer.byteLength(bundles.minimal.contents), "bytes"),
  figure(
    "platformFloorWorkerBundleBytes",
    "platform floor Worker bundle (the minimal one's work on HttpRouter and D1Client)",
    Buffer.byteLength(bundles.floor.contents),
    "bytes"
  )
]

/** Each Worker's figure keys begin with its prefix, and its figures' labels with its name. */
const PREFIX: Record<Kind, string> = {
  example: "worker",
  handwritten: "handwrittenWorker",
  minimal: "minimalEffectWorker",
  floor: "platformFloorWorker"
}
const NAME: Record<Kind, string> = {
  example: "example Worker",
  handwritten: "hand-written Worker",
  minimal: "minimal Effect Worker",
  floor: "platform floor Worker"
}

/**
 * One measure as a figure per Worker in `values` (`<prefix><measure>`), in its order: the
 * example's labelled `label`, each other "<its name>, the same".
 */
const perWorker = <K extends Kind>(measure: string, label: string, values: Record<K, number>, unit: string) =>
  (Object.keys(values) as Array<K>).map((kind) =>
    figure(`${PREFIX[kind]}${measure}`, kind === "example" ? label : `${NAME[kind]}, the same`, values[kind], unit)
  )

/**
 * The callgrind counts as figures: the example's, the minimal Effect Worker's and the
 * platform floor's, first webhook, module evaluation and compile alone.
 */
const instructionFigures = (instructions: NonNullable<Awaited<ReturnType<typeof counted>>>) => [
  ...perWorker(
    "FirstRequestInstructions",
    `example Worker, instructions of a fresh isolate's first webhook (workerd under callgrind; target <= the minimal Effect Worker's + 15 ms' worth)`,
    instructions.first,
    "instr"
  ),
  ...perWorker(
    "ModuleEvalInstructions",
    "example bundle's import() in Node under callgrind, less an empty module's (target <= 1.5x the minimal Effect Worker's)",
    instructions.eval,
    "instr"
  ),
  ...perWorker(
    "ModuleCompileInstructions",
    "example bundle compiled as an ES module in Node, not evaluated, less an empty module's (its parse: follows the code shipped)",
    instructions.compile,
    "instr"
  ),
  // The example's bundle holds every module of the floor's but the floor's own 2 KB, so
  // its import() cannot cost less than its own compile plus the floor's evaluation: the
  // least it could reach were hookgate's global scope to do nothing at all.
  figure(
    "workerModuleEvalLeastInstructions",
    "least the example's import() could cost: its compile + the platform floor's evaluation (import() less compile)",
    instructions.compile.example + instructions.eval.floor - instructions.compile.floor,
    "instr"
  )
]

/**
 * BENCH_WORKER_ONLY=instructions: the bundle sizes and the instruction counts alone
 * (a few minutes, not the whole suite's), for work on the cold figures.
 */
const instructionsOnly = async () => {
  const bundles = await bundled()
  const persist = mkdtempSync(join(tmpdir(), "hookgate-bench-worker-"))
  try {
    const instructions = await counted(workerOptions(bundles), persist, importPaths(bundles), ["example", "minimal", "floor"])
    return instructions === undefined ? [] : [...bundleFigures(bundles), ...instructionFigures(instructions)]
  } finally {
    rmSync(persist, { recursive: true, force: true })
    rmSync(bundles.example.outdir, { recursive: true, force: true })
  }
}

const run = async () => {
  if (process.env.BENCH_WORKER_ONLY === "instructions") return instructionsOnly()
  const tBundle = performance.now()
  const bundles = await bundled()
  const persist = mkdtempSync(join(tmpdir(), "hookgate-bench-worker-"))
  try {
    const options = workerOptions(bundles)
    const t0 = performance.now()
    // The warm run also migrates the example's D1 (`migrate: true`), as `wrangler d1 migrations apply` would.
    const cpu = await warm(options, persist)
    const t1 = performance.now()
    const firsts = await firstRequests(options, persist)
    const t2 = performance.now()
    const paths = importPaths(bundles)
    const evals = await moduleEval(paths)
    const t3 = performance.now()
    // The warm run readied every Worker's D1.
    const instructions = valgrindWanted() ? await counted(options, persist, paths, []) : undefined
    const seconds = (from: number, to: number) => ((to - from) / 1000).toFixed(0)
    console.log(
      `  (bundle ${seconds(tBundle, t0)} s, warm ${seconds(t0, t1)} s, first requests ${seconds(t1, t2)} s, evaluation ${
        seconds(t2, t3)
      } s, ${instructions === undefined ? "no valgrind" : `callgrind ${seconds(t3, performance.now())} s`})`
    )
    const countedFigures = instructions === undefined ? [] : instructionFigures(instructions)
    const n = `${ROUNDS} x ${PER_ROUND} webhooks each, median round`
    return [
      ...perWorker("WebhookCpuMs", `example Worker, workerd CPU per webhook, warm (${n})`, cpu.perWebhook, "ms"),
      figure(
        "workerWebhookCpuRoundRatio",
        "example / hand-written Worker, warm, median of the per-round ratios (each round runs both back to back)",
        cpu.roundRatio,
        "x"
      ),
      ...perWorker(
        "FirstRequestCpuMs",
        `example Worker, CPU of a fresh isolate's first webhook (median of ${FIRST_SAMPLES}; ${
          (firsts.first.example - firsts.first.minimal).toFixed(1)
        } ms over the minimal Effect Worker, target <= 15; the platform floor ${
          (firsts.first.floor - firsts.first.minimal).toFixed(1)
        } ms over it)`,
        firsts.first,
        "ms"
      ),
      ...perWorker("StartupCpuMs", "workerd start-up CPU with the example Worker (spawn to ready)", firsts.startup, "ms"),
      ...perWorker(
        "ModuleEvalMs",
        `example bundle's import() in Node, CPU (median of ${EVAL_SAMPLES}; target <= 1.5x the minimal Effect Worker's)`,
        evals,
        "ms"
      ),
      ...bundleFigures(bundles),
      figure("workerBundleGzipBytes", "example bundle, gzipped", gzipSync(bundles.example.contents).length, "bytes"),
      ...countedFigures
    ]
  } finally {
    rmSync(persist, { recursive: true, force: true })
    rmSync(bundles.example.outdir, { recursive: true, force: true })
  }
}

export const workerSuite: BenchSuite = {
  name: "worker",
  run,
  ratios: [
    ["example / hand-written Worker, warm CPU per webhook (target <= 1.5)", "workerWebhookCpuMs", "handwrittenWorkerWebhookCpuMs"],
    ["minimal Effect / hand-written Worker, warm CPU per webhook", "minimalEffectWorkerWebhookCpuMs", "handwrittenWorkerWebhookCpuMs"],
    ["example / minimal Effect Worker, module evaluation CPU (target <= 1.5)", "workerModuleEvalMs", "minimalEffectWorkerModuleEvalMs"],
    [
      "example / minimal Effect Worker, module evaluation instructions (target <= 1.5)",
      "workerModuleEvalInstructions",
      "minimalEffectWorkerModuleEvalInstructions"
    ],
    [
      "example / minimal Effect Worker, first webhook instructions",
      "workerFirstRequestInstructions",
      "minimalEffectWorkerFirstRequestInstructions"
    ],
    [
      "example / platform floor Worker, module evaluation instructions",
      "workerModuleEvalInstructions",
      "platformFloorWorkerModuleEvalInstructions"
    ],
    [
      "example / platform floor Worker, first webhook instructions",
      "workerFirstRequestInstructions",
      "platformFloorWorkerFirstRequestInstructions"
    ],
    [
      "platform floor / minimal Effect Worker, module evaluation instructions",
      "platformFloorWorkerModuleEvalInstructions",
      "minimalEffectWorkerModuleEvalInstructions"
    ],
    [
      "least the example's module evaluation could cost / minimal Effect Worker's, instructions (the 1.5 target's bound)",
      "workerModuleEvalLeastInstructions",
      "minimalEffectWorkerModuleEvalInstructions"
    ],
    ["platform floor / minimal Effect Worker, module evaluation CPU", "platformFloorWorkerModuleEvalMs", "minimalEffectWorkerModuleEvalMs"],
    ["example / platform floor Worker, warm CPU per webhook", "workerWebhookCpuMs", "platformFloorWorkerWebhookCpuMs"]
  ]
}
