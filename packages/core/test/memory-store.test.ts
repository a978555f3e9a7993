import { alertStoreConformance, epochMillisConformance, pipelineBehaviours, pruneConformance, storeConformance } from "@hookgate/testing/conformance"
import { MemoryAlertStore, MemoryLedgers, MemoryStore } from "@hookgate/testing"
import { Layer } from "effect"

storeConformance("in-memory", () => MemoryStore.layer)
pruneConformance("in-memory", () => MemoryStore.layer)
pipelineBehaviours("in-memory", () => MemoryStore.layer)
alertStoreConformance("in-memory", () => MemoryAlertStore.layer)
alertStoreConformance("in-memory, beside the orders", () => MemoryStore.layer)
epochMillisConformance("in-memory", () => MemoryLedgers.layer.pipe(Layer.provideMerge(MemoryStore.layer)))
