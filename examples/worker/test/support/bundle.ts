import { execFile } from "node:child_process"
import { mkdtemp, readFile } from "node:fs/promises"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { promisify } from "node:util"

export const exampleDir = join(import.meta.dirname, "..", "..")
export const wranglerConfig = join(exampleDir, "wrangler.jsonc")
const wranglerBin = createRequire(import.meta.url).resolve("wrangler/bin/wrangler.js")

/** Runs the example's wrangler, offline: no metrics, no prompts. */
export const wrangler = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  promisify(execFile)(process.execPath, [wranglerBin, ...args], {
    cwd: exampleDir,
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "1", NO_COLOR: "1", ...env },
    maxBuffer: 16 * 1024 * 1024
  })

/**
 * Bundles the Worker exactly as `wrangler deploy` does (its esbuild, its
 * conditions, its externals, wrangler.jsonc's `minify` and `keep_names`),
 * without uploading: `deploy --dry-run --outdir`, with esbuild's metafile.
 * The `@hookgate/source` condition is added so that the workspace packages are
 * bundled from their TypeScript sources rather than from a possibly stale `dist`.
 */
export const bundleWorker = async (): Promise<{
  readonly path: string
  readonly contents: string
  /** The files with code in the bundle (esbuild's metafile: the output's inputs), relative to the example. */
  readonly inputs: ReadonlyArray<string>
  /** Each file esbuild read and what it imports (the metafile's inputs), relative to the example. */
  readonly imports: ReadonlyArray<{ readonly file: string; readonly imports: ReadonlyArray<string> }>
}> => {
  const outdir = await mkdtemp(join(tmpdir(), "hookgate-worker-"))
  const metafile = join(outdir, "meta.json")
  await wrangler(["deploy", "--dry-run", "--outdir", outdir, "--metafile", metafile, "--config", wranglerConfig], {
    WRANGLER_BUILD_CONDITIONS: "@hookgate/source,workerd,worker,browser"
  })
  const path = join(outdir, "index.js")
  const meta = JSON.parse(await readFile(metafile, "utf8")) as {
    readonly inputs: Record<string, { readonly imports: ReadonlyArray<{ readonly path: string }> }>
    readonly outputs: Record<string, { readonly inputs: Record<string, { readonly bytesInOutput: number }> }>
  }
  const output = Object.entries(meta.outputs).find(([file]) => file.endsWith("index.js"))![1]
  return {
    path,
    contents: await readFile(path, "utf8"),
    inputs: Object.entries(output.inputs).filter(([, input]) => input.bytesInOutput > 0).map(([file]) => file),
    imports: Object.entries(meta.inputs).map(([file, input]) => ({ file, imports: input.imports.map((i) => i.path) }))
  }
}

export const storeD1Migrations = join(dirname(createRequire(import.meta.url).resolve("@hookgate/store-d1/package.json")), "migrations")
