import { campaignBehaviours, campaignStoreConformance, messageLedgerConformance } from "@hookgate/testing/conformance"
import { usePgServer } from "./support.js"

// The ledger suites on a real PostgreSQL server, a fresh database per test.
const pg = usePgServer()

messageLedgerConformance("Postgres", pg.freshStore)
campaignStoreConformance("Postgres", pg.freshStore)
campaignBehaviours("Postgres", pg.freshStore)
