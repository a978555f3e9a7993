import { defineConfig } from "vite"

// Workspace packages resolve to their TypeScript sources through the
// "@hookgate/source" export condition, so tests never need a build first.
// No "module" condition: dependencies load as Node loads them (some packages'
// "module" builds, such as @opentelemetry/api's, are not valid Node ESM).
const conditions = ["@hookgate/source", "node", "development|production"]

// test/consumer/ packs the packages and installs them into apps outside the
// repository (see its README): it needs the build (`tsc -b`) and the npm registry or cache.
export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "examples/*/test/**/*.test.ts", "test/consumer/*.test.ts", "test/upgrade/*.test.ts", "test/manifests/*.test.ts", "model/test/**/*.test.ts", "bench/test/**/*.test.ts"],
    // Generous: many tests start CLI processes (a few seconds of CPU each), and a loaded
    // 2-core machine runs them several times slower.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // vitest's default in a run is one worker fewer than the CPUs: a single worker on the
    // 2-core machines `npm test` must stay under 15 minutes on. Most files wait on child
    // processes (the CLI, Postgres, workerd, npm), so three files at a time keep 2 cores busy.
    // The same three from start to end: with shared module graphs, a worker the pool stopped
    // as idle (minWorkers 1) failed the run with tinypool's "Terminating worker thread".
    maxWorkers: 3,
    minWorkers: 3,
    // One module graph per worker, not per file: importing effect, @effect/platform and the
    // packages again for every file cost more CPU than most files' tests (packages/core's:
    // 135 s → 39 s of CPU). Test files keep no state in shared modules: each starts and stops
    // its own servers (the simulations' lazily started ones start again after a dispose).
    poolOptions: { forks: { isolate: false } }
  }
})
