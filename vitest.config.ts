import { defaultServerConditions, defineConfig } from "vite"

// Workspace packages resolve to their TypeScript sources through the
// "@hookgate/source" export condition, so tests never need a build first.
export default defineConfig({
  resolve: { conditions: ["@hookgate/source", ...defaultServerConditions] },
  ssr: { resolve: { conditions: ["@hookgate/source", ...defaultServerConditions] } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "examples/*/test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000
  }
})
