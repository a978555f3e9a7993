import { defineConfig } from "vitest/config"

// The tests bundle the Worker with wrangler and start it in Miniflare (workerd): a
// bundle takes seconds, longer on a busy machine, so the timeouts are well above
// vitest's 5 s. In the hookgate repository `npx vitest run examples/worker` at the
// root uses the root's config instead (the same timeouts, and the packages' sources).
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 180_000
  }
})
