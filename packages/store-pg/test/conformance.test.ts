import { epochMillisConformance, pipelineBehaviours, pruneConformance, storeConformance } from "@hookgate/testing/conformance"
import { SqlStore } from "@hookgate/store-sql"
import { usePgServer } from "./support.js"

// The suites on a real PostgreSQL server, a fresh database per test.
const pg = usePgServer()

storeConformance("Postgres", pg.freshStore)
pruneConformance("Postgres", pg.freshStore)
pipelineBehaviours("Postgres", pg.freshStore)
epochMillisConformance("Postgres", pg.freshStore, SqlStore.storedTimes)
