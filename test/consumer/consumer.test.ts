// hookgate as its users get it: every package packed, installed from the
// tarballs into fresh projects outside this repository, and used there as the
// README, docs/plugins.md and examples/worker show. See README.md beside this file.
import { existsSync, readFileSync } from "node:fs"
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { run } from "./support/exec.js"
import { missingFiles, packRelease, type Tarball } from "./support/pack.js"
import { extractSnippets, snippetsModule } from "./support/snippets.js"

const repo = join(import.meta.dirname, "..", "..")
const templateDir = join(import.meta.dirname, "app")
/** The documents whose TypeScript blocks the app runs, and the module each becomes. */
const documents = [
  { path: "README.md", module: "readme.ts" },
  { path: "docs/plugins.md", module: "docs-plugins.ts" }
]
/** What the app installs besides hookgate's tarballs, at the versions this repository tests (so the npm cache serves them). */
const registryDependencies = ["effect", "@effect/platform", "@effect/sql", "@effect/experimental"]
const registryDevDependencies = ["@effect/vitest", "vitest", "typescript", "@types/node", "stripe"]
// Install scripts are skipped: the one native addon the app needs, better-sqlite3, is
// pinned to the workspace's version and its compiled addon copied in (compiling it
// takes minutes on a loaded machine; its prebuilt download needs GitHub).
const npmInstall = ["install", "--prefer-offline", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"]
const copyNativeAddon = (project: string, name: string) =>
  cp(join(repo, "node_modules", name, "build"), join(project, "node_modules", name, "build"), { recursive: true })

// Read from node_modules directly: not every package exports its package.json.
const installedVersion = (name: string): string =>
  (JSON.parse(readFileSync(join(repo, "node_modules", name, "package.json"), "utf8")) as { version: string }).version

/**
 * Libraries whose own declarations need the DOM lib, so an app without it and
 * without skipLibCheck sees errors inside them whatever hookgate does:
 * @effect/platform's KeyValueStore and Transferable name DOM's Storage,
 * Transferable, ImageData and MessagePort. Errors there are tolerated; an error in
 * any other file (hookgate's declarations, the app, the docs' code) fails the test.
 */
const declarationsNeedingDom = ["node_modules/@effect/platform/dist/dts/"]

/** tsc's errors, except those inside `declarationsNeedingDom`. */
const typeErrors = (output: string): ReadonlyArray<string> =>
  output
    .split("\n")
    .filter((line) => / error TS\d+:/.test(line))
    .filter((line) => !declarationsNeedingDom.some((prefix) => line.startsWith(prefix)))

let scratch: string
let tarballs: ReadonlyArray<Tarball>
/** What `npm run pack-release -- @hookgate/node` printed for a user to type. */
let cliInstallLine: ReadonlyArray<string>
const timings: Array<string> = []
const timed = async <A>(label: string, work: () => Promise<A>): Promise<A> => {
  const started = Date.now()
  try {
    return await work()
  } finally {
    timings.push(`${label} ${((Date.now() - started) / 1000).toFixed(1)} s`)
  }
}

/** `file:` dependencies on the tarballs, and overrides so that no copy of a hookgate package comes from anywhere else. */
const fromTarballs = (names: ReadonlyArray<string>) => {
  const dependencies: Record<string, string> = {}
  const overrides: Record<string, string> = {}
  for (const name of names) {
    const tarball = tarballs.find((candidate) => candidate.name === name)
    if (tarball === undefined) throw new Error(`${name} was not packed`)
    dependencies[name] = `file:${tarball.path}`
    overrides[name] = `$${name}`
  }
  return { dependencies, overrides }
}

/** The hookgate packages a package needs, transitively. */
const withHookgateDependencies = (names: ReadonlyArray<string>): ReadonlyArray<string> => {
  const all = new Set<string>()
  const visit = (name: string) => {
    if (all.has(name)) return
    all.add(name)
    const tarball = tarballs.find((candidate) => candidate.name === name)
    for (const dependency of Object.keys(tarball?.manifest.dependencies ?? {})) {
      if (dependency.startsWith("@hookgate/")) visit(dependency)
    }
  }
  names.forEach(visit)
  return [...all].sort()
}

beforeAll(async () => {
  if (!existsSync(join(repo, "packages/core/dist/src/index.js"))) throw new Error("build first: npx tsc -b")
  scratch = await mkdtemp(join(tmpdir(), "hookgate-consumer-"))
  const released = await timed("pack-release (every package)", () => packRelease(repo, join(scratch, "release"), ["@hookgate/node"]))
  tarballs = released.tarballs
  cliInstallLine = released.installLine
}, 900_000)

afterAll(async () => {
  // HOOKGATE_CONSUMER_KEEP=1 keeps the scratch folder, to look into a failure.
  if (scratch !== undefined && process.env.HOOKGATE_CONSUMER_KEEP !== "1") await rm(scratch, { recursive: true, force: true })
  else if (scratch !== undefined) console.log(`kept ${scratch}`)
  console.log(`consumer test timings:\n  ${timings.join("\n  ")}`)
})

describe("the packed tarballs", () => {
  it("hold what their exports, bin and declaration maps point at, and nothing from test/", () => {
    expect(tarballs.length).toBeGreaterThanOrEqual(13)
    for (const tarball of tarballs) {
      expect({ name: tarball.name, missing: missingFiles(tarball) }).toEqual({ name: tarball.name, missing: [] })
      expect(tarball.files.filter((file) => /(^|\/)test\//.test(file))).toEqual([])
      expect(tarball.manifest.dependencies?.["effect"]).toBeUndefined()
    }
    console.log(tarballs.map((t) => `${t.name} ${(t.size / 1024).toFixed(1)} kB`).join("\n"))
  })
})

describe("an app that installed the tarballs", () => {
  let app: string

  beforeAll(async () => {
    app = join(scratch, "app")
    await cp(templateDir, app, { recursive: true })
    await mkdir(join(app, "snippets"))
    for (const document of documents) {
      const markdown = await readFile(join(repo, document.path), "utf8")
      const snippets = extractSnippets(markdown)
      if (snippets.length === 0) throw new Error(`${document.path} has no TypeScript block`)
      // Whole files (a plugin and its test) go where the app's vitest finds them; the
      // other blocks of a document become one module.
      for (const snippet of snippets.filter((s) => s.file !== undefined)) {
        await writeFile(join(app, "test", snippet.file!), snippet.code)
      }
      await writeFile(join(app, "snippets", document.module), snippetsModule(document.path, snippets.filter((s) => s.file === undefined)))
    }
    const hookgate = withHookgateDependencies([
      "@hookgate/alerters",
      "@hookgate/core",
      "@hookgate/mailer-postmark",
      "@hookgate/mailer-resend",
      "@hookgate/mailer-smtp",
      "@hookgate/node",
      "@hookgate/provider-creem",
      "@hookgate/provider-lemonsqueezy",
      "@hookgate/provider-paddle",
      "@hookgate/provider-polar",
      "@hookgate/provider-stripe",
      "@hookgate/store-pg",
      "@hookgate/store-sqlite",
      "@hookgate/testing"
    ])
    const { dependencies, overrides } = fromTarballs(hookgate)
    const pin = (names: ReadonlyArray<string>) => Object.fromEntries(names.map((name) => [name, installedVersion(name)]))
    await writeFile(
      join(app, "package.json"),
      JSON.stringify(
        {
          name: "shop",
          private: true,
          type: "module",
          dependencies: { ...dependencies, ...pin(registryDependencies) },
          devDependencies: pin(registryDevDependencies),
          overrides: { ...overrides, "better-sqlite3": installedVersion("better-sqlite3") }
        },
        null,
        2
      )
    )
    await timed("app: npm install", () => run("npm", npmInstall, { cwd: app, timeoutMs: 600_000 }))
    await copyNativeAddon(app, "better-sqlite3")
  }, 900_000)

  it("has one copy of effect and of each shared @effect package", async () => {
    const { stdout } = await run("npm", ["ls", "--all", "--json", ...registryDependencies], { cwd: app })
    const versions = new Map<string, Set<string>>()
    const walk = (dependencies: Record<string, { version?: string; dependencies?: object }> | undefined) => {
      for (const [name, node] of Object.entries(dependencies ?? {})) {
        if (registryDependencies.includes(name) && node.version) versions.set(name, (versions.get(name) ?? new Set()).add(node.version))
        walk(node.dependencies as Record<string, { version?: string }> | undefined)
      }
    }
    walk((JSON.parse(stdout) as { dependencies?: Record<string, { version?: string }> }).dependencies)
    for (const name of registryDependencies) expect([name, versions.get(name)?.size]).toEqual([name, 1])
  }, 120_000)

  it.each([
    ["NodeNext", "tsconfig.json"],
    ["Bundler", "tsconfig.bundler.json"]
  ])("type-checks under strict, moduleResolution %s, no DOM lib, no skipLibCheck", async (resolution, config) => {
    const { code, stdout } = await timed(`app: tsc (${resolution})`, () =>
      run(process.execPath, [join(app, "node_modules/typescript/bin/tsc"), "-p", config, "--pretty", "false"], {
        cwd: app,
        allowExitCode: true
      }))
    expect(typeErrors(stdout)).toEqual([])
    if (code !== 0) expect(stdout).toMatch(/error TS/) // a non-zero exit is only ever the tolerated errors
  }, 900_000)

  it("runs the README's and docs/plugins.md's code: Stripe through the README's runtime, the Acme plugin, the app's template test", async () => {
    const { stdout } = await timed("app: vitest", () =>
      run(process.execPath, [join(app, "node_modules/vitest/vitest.mjs"), "run", "--reporter=verbose"], { cwd: app }))
    // The app's own tests, and the whole files docs/plugins.md shows (its plugin's conformance test).
    expect(stdout).toMatch(/Test Files\s+(\d+) passed \(\1\)/)
    expect(stdout).toContain("acme-provider.test.ts")
    expect(stdout).toContain("lemonsqueezy-doc.test.ts")
    expect(stdout).toContain("readme-mailers.test.ts")
    expect(stdout).not.toMatch(/skipped|todo/)
  }, 900_000)

  it("runs `npx @hookgate/node --help` and `npx @hookgate/node demo` from the installed tarball", async () => {
    const help = await run("npx", ["@hookgate/node", "--help"], { cwd: app })
    expect(help.stdout).toMatch(/payment webhooks into emails that go out once/)
    expect(help.stdout).toMatch(/\bserve\b/)
    expect(help.stdout).toMatch(/\bdemo\b/)
    // The demo keeps its database and outbox under the OS temp dir for inspection: the scratch folder here.
    const demoTmp = join(scratch, "demo-tmp")
    await mkdir(demoTmp)
    const demo = await timed("app: npx @hookgate/node demo", () =>
      run("npx", ["@hookgate/node", "demo"], { cwd: app, env: { TMPDIR: demoTmp, TMP: demoTmp, TEMP: demoTmp } }))
    expect(demo.stdout).toMatch(/one email per order/)
    expect(demo.stdout).toContain(demoTmp)
  }, 1_200_000)
})

describe("examples/worker, copied out of the repository", () => {
  it("installs from the tarballs with its own package.json; its own `npm run typecheck` and `npm test` pass", async () => {
    const worker = join(scratch, "worker")
    const { stdout: tracked } = await run("git", ["ls-files", "examples/worker"], { cwd: repo })
    for (const file of tracked.split("\n").filter((line) => line !== "")) {
      await mkdir(dirname(join(worker, file.slice("examples/worker/".length))), { recursive: true })
      await cp(join(repo, file), join(worker, file.slice("examples/worker/".length)))
    }
    for (const file of ["tsconfig.json", "wrangler.jsonc", "vitest.config.ts"]) {
      expect([file, await readFile(join(worker, file), "utf8")]).not.toEqual([file, expect.stringContaining("../")])
    }
    const manifest = JSON.parse(await readFile(join(worker, "package.json"), "utf8")) as {
      dependencies: Record<string, string>
      overrides?: Record<string, unknown>
    }
    const hookgate = withHookgateDependencies(Object.keys(manifest.dependencies).filter((name) => name.startsWith("@hookgate/")))
    const { dependencies, overrides } = fromTarballs(hookgate)
    await writeFile(
      join(worker, "package.json"),
      JSON.stringify(
        {
          ...manifest,
          dependencies: { ...manifest.dependencies, ...dependencies },
          overrides: { ...manifest.overrides, ...overrides }
        },
        null,
        2
      )
    )
    await timed("worker: npm install", () => run("npm", npmInstall, { cwd: worker, timeoutMs: 600_000 }))
    const ls = await run("npm", ["ls", "--all"], { cwd: worker })
    expect(ls.stdout).not.toMatch(/\binvalid\b|UNMET (PEER )?DEPENDENCY|extraneous/)
    // As its user would: the copy's own scripts, its own tsconfig.json and vitest.config.ts.
    await timed("worker: npm run typecheck", () => run("npm", ["run", "typecheck"], { cwd: worker }))
    // Its tests bundle it with `wrangler deploy --dry-run` and run the bundle in Miniflare.
    const { stdout } = await timed("worker: npm test", () => run("npm", ["test"], { cwd: worker, timeoutMs: 900_000 }))
    expect(stdout).toMatch(/Test Files\s+(\d+) passed \(\1\)/)
    expect(stdout).toContain("walkthrough.test.ts")
  }, 1_800_000)
})

describe("a project with only `npm run pack-release -- @hookgate/node`'s install line", () => {
  it("installs the CLI from the tarballs (with the @hookgate packages it needs, without the optional OpenTelemetry); `npx @hookgate/node --help` answers", async () => {
    const project = join(scratch, "cli")
    await mkdir(project)
    await writeFile(join(project, "package.json"), JSON.stringify({ name: "cli-user", private: true }, null, 2))
    const [npm, ...args] = cliInstallLine
    expect([npm, args[0]]).toEqual(["npm", "install"])
    // The line as printed; the flags only let the npm cache serve the registry's packages.
    await timed("cli: npm install (the printed line)", () =>
      run(npm!, [...args, ...npmInstall.slice(1)], { cwd: project, timeoutMs: 600_000 }))
    const installed = JSON.parse(await readFile(join(project, "package.json"), "utf8")) as { dependencies: Record<string, string> }
    expect(installed.dependencies["@hookgate/store-sql"]).toMatch(/^file:/)
    const help = await run("npx", ["@hookgate/node", "--help"], { cwd: project })
    expect(help.stdout).toMatch(/payment webhooks into emails that go out once/)
    expect(help.stdout).toMatch(/\bserve\b/)
    // OpenTelemetry (tracing, /metrics) is an optional peer: not installed by the line, and
    // turning /metrics on without it is one line that says what to install.
    expect(existsSync(join(project, "node_modules/@effect/opentelemetry"))).toBe(false)
    expect(existsSync(join(project, "node_modules/@opentelemetry"))).toBe(false)
    const metrics = await run("npx", ["@hookgate/node", "serve"], {
      cwd: project,
      env: { HOOKGATE_METRICS: "prometheus", STRIPE_WEBHOOK_SECRET: "whsec_consumer_test", PORT: "0" },
      allowExitCode: true,
      timeoutMs: 120_000
    })
    expect(metrics.code).toBe(1)
    expect(metrics.stderr).toContain(
      "hookgate: metrics (HOOKGATE_METRICS=prometheus) needs @effect/opentelemetry@^0.64.1, @opentelemetry/exporter-prometheus@^0.223.0"
    )
    expect(metrics.stderr).toContain("npm install @effect/opentelemetry@^0.64.1 @opentelemetry/exporter-prometheus@^0.223.0")
  }, 900_000)
})
