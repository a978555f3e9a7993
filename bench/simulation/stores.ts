import { SqliteStore } from "@hookgate/store-sqlite"
import { layerMemoryLedgers, layerMemoryStore } from "@hookgate/core/testing"
import { Layer } from "effect"

/** The stores a simulation runs on: the in-memory doubles, or SQLite in memory (no file, no fsync: the same SQL). */
export type StoreKind = "memory" | "sqlite"

export const storeLayer = (kind: StoreKind) =>
  kind === "memory" ? Layer.merge(layerMemoryStore, layerMemoryLedgers) : SqliteStore.layer({ filename: ":memory:" })
