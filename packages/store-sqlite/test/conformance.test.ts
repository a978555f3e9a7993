import { alertStoreConformance, pipelineBehaviours, storeConformance } from "@hookgate/core/conformance"
import { SqliteStore } from "@hookgate/store-sqlite"

storeConformance("SQLite", () => SqliteStore.layer({ filename: ":memory:" }))
pipelineBehaviours("SQLite", () => SqliteStore.layer({ filename: ":memory:" }))
alertStoreConformance("SQLite", () => SqliteStore.layer({ filename: ":memory:" }))
