import { pipelineBehaviours, storeConformance } from "@hookgate/core/conformance"
import { usePgServer } from "./support.js"

// Both suites on a real PostgreSQL server, a fresh database per test.
const pg = usePgServer()

storeConformance("Postgres", pg.freshStore)
pipelineBehaviours("Postgres", pg.freshStore)
