import { build } from "esbuild"

/** A test Worker bundled as wrangler would (ESM, workerd conditions), from the workspace's sources. */
export const bundleWorker = async (entryPoint: string): Promise<string> => {
  const result = await build({
    entryPoints: [entryPoint],
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    conditions: ["@hookgate/source", "workerd", "worker", "browser"],
    mainFields: ["module", "main"],
    external: ["cloudflare:*"],
    write: false,
    logLevel: "silent"
  })
  return result.outputFiles[0]!.text
}
