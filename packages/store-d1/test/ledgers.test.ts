import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { campaignBehaviours, campaignStoreConformance, messageLedgerConformance } from "@hookgate/testing/conformance"
import { type D1Pool, freshStoreLayer, type ParameterTrace, startD1Pool } from "./support.js"

// The ledger suites on a real D1 (Miniflare's workerd), a fresh database per test.
let pool: D1Pool
beforeAll(async () => {
  pool = await startD1Pool(40)
})
afterAll(() => pool?.dispose())

const trace: ParameterTrace = { statements: 0, widest: 0, widestSql: "" }

messageLedgerConformance("D1", () => freshStoreLayer(() => pool, trace))
campaignStoreConformance("D1", () => freshStoreLayer(() => pool, trace))
campaignBehaviours("D1", () => freshStoreLayer(() => pool, trace))

// Registered last, so it runs after the suites: whole batches of 100 recipients
// went through, and no statement bound more than D1's limit of 100 parameters.
describe("D1 parameter limit (ledgers)", () => {
  it("no statement of the message or campaign ledger bound more than 100 parameters", () => {
    expect(trace.statements).toBeGreaterThan(500)
    expect(trace.widest, trace.widestSql).toBeLessThanOrEqual(100)
  })
})
