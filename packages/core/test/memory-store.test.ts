import { alertStoreConformance, epochMillisConformance, pipelineBehaviours, pruneConformance, storeConformance } from "@hookgate/testing/conformance"
import { layerMemoryAlertStore, layerMemoryLedgers, layerMemoryStore } from "@hookgate/testing"
import { Layer } from "effect"

storeConformance("in-memory", () => layerMemoryStore)
pruneConformance("in-memory", () => layerMemoryStore)
pipelineBehaviours("in-memory", () => layerMemoryStore)
alertStoreConformance("in-memory", () => layerMemoryAlertStore)
alertStoreConformance("in-memory, beside the orders", () => layerMemoryStore)
epochMillisConformance("in-memory", () => layerMemoryLedgers.pipe(Layer.provideMerge(layerMemoryStore)))
