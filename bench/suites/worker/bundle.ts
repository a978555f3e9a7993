import { build } from "esbuild"
import { execFile } from "node:child_process"
import { mkdtempSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"

export const exampleDir = fileURLToPath(new URL("../../../../examples/worker/", import.meta.url))
export const wranglerConfig = join(exampleDir, "wrangler.jsonc")
const wranglerBin = createRequire(import.meta.url).resolve("wrangler/bin/wrangler.js")

/**
 * The example Worker bundled as production bundles it: `wrangler deploy --dry-run
 * --outdir` with its wrangler.jsonc and the packages as published (their built
 * `dist`), offline. Answers the bundle and esbuild's metafile.
 */
export const bundleExampleWorker = async () => {
  const outdir = mkdtempSync(join(tmpdir(), "hookgate-bench-bundle-"))
  await promisify(execFile)(
    process.execPath,
    [wranglerBin, "deploy", "--dry-run", "--outdir", outdir, "--metafile", join(outdir, "meta.json"), "--config", wranglerConfig],
    { cwd: exampleDir, env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "1", NO_COLOR: "1" }, maxBuffer: 16 * 1024 * 1024 }
  )
  const path = join(outdir, "index.js")
  return {
    outdir,
    path,
    contents: readFileSync(path, "utf8"),
    metafile: JSON.parse(readFileSync(join(outdir, "meta.json"), "utf8")) as { inputs: Record<string, unknown> }
  }
}

/**
 * One of the suite's Effect Workers, `entry` of this folder compiled by tsc
 * (minimal-effect.ts, the minimal Effect Worker, or platform-floor.ts, the platform
 * floor), bundled by esbuild with the options wrangler uses for the example: ESM,
 * the workerd conditions, minified, no keep_names.
 */
export const bundleEffectWorker = async (entry: "minimal-effect" | "platform-floor", outdir: string) => {
  const path = join(outdir, `${entry}.js`)
  await build({
    entryPoints: [fileURLToPath(new URL(`./${entry}.js`, import.meta.url))],
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2024",
    conditions: ["workerd", "worker", "browser"],
    mainFields: ["module", "main"],
    minify: true,
    keepNames: false,
    outfile: path,
    logLevel: "silent"
  })
  return { path, contents: readFileSync(path, "utf8") }
}
