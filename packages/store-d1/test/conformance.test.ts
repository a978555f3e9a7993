import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { alertStoreConformance, epochMillisConformance, pipelineBehaviours, pruneConformance, storeConformance } from "@hookgate/testing/conformance"
import { SqlStore } from "@hookgate/store-sql"
import { type D1Pool, freshStoreLayer, type ParameterTrace, startD1Pool } from "./support.js"

// The suites on a real D1 (Miniflare's workerd), a fresh database per test.
let pool: D1Pool
beforeAll(async () => {
  pool = await startD1Pool(80)
})
afterAll(() => pool?.dispose())

const trace: ParameterTrace = { statements: 0, widest: 0, widestSql: "" }

storeConformance("D1", () => freshStoreLayer(() => pool, trace))
pruneConformance("D1", () => freshStoreLayer(() => pool, trace))
pipelineBehaviours("D1", () => freshStoreLayer(() => pool, trace))
alertStoreConformance("D1", () => freshStoreLayer(() => pool, trace))
epochMillisConformance("D1", () => freshStoreLayer(() => pool, trace), SqlStore.storedTimes)

// Registered last, so it runs after the suites: every statement they bound
// stayed within D1's limit of 100 parameters.
describe("D1 parameter limit", () => {
  it("no statement of the store bound more than 100 parameters", () => {
    expect(trace.statements).toBeGreaterThan(500)
    expect(trace.widest).toBeGreaterThan(0)
    expect(trace.widest, trace.widestSql).toBeLessThanOrEqual(100)
    console.info(`D1 trace: ${trace.statements} statements bound, the widest ${trace.widest} parameters`)
  })
})
