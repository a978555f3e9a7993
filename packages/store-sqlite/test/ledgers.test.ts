import { campaignBehaviours, campaignStoreConformance, messageLedgerConformance } from "@hookgate/core/conformance"
import { SqliteStore } from "@hookgate/store-sqlite"

const sqlite = () => SqliteStore.layer({ filename: ":memory:" })

messageLedgerConformance("SQLite", sqlite)
campaignStoreConformance("SQLite", sqlite)
campaignBehaviours("SQLite", sqlite)
