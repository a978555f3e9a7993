import { alertStoreConformance, epochMillisConformance, pipelineBehaviours, pruneConformance, storeConformance } from "@hookgate/testing/conformance"
import { SqlStore } from "@hookgate/store-sql"
import { SqliteStore } from "@hookgate/store-sqlite"

storeConformance("SQLite", () => SqliteStore.layer({ filename: ":memory:" }))
pruneConformance("SQLite", () => SqliteStore.layer({ filename: ":memory:" }))
pipelineBehaviours("SQLite", () => SqliteStore.layer({ filename: ":memory:" }))
alertStoreConformance("SQLite", () => SqliteStore.layer({ filename: ":memory:" }))
epochMillisConformance("SQLite", () => SqliteStore.layer({ filename: ":memory:" }), SqlStore.storedTimes)
