import { alertStoreConformance, pipelineBehaviours, storeConformance } from "@hookgate/core/conformance"
import { layerMemoryAlertStore, layerMemoryStore } from "@hookgate/core/testing"

storeConformance("in-memory", () => layerMemoryStore)
pipelineBehaviours("in-memory", () => layerMemoryStore)
alertStoreConformance("in-memory", () => layerMemoryAlertStore)
alertStoreConformance("in-memory, beside the orders", () => layerMemoryStore)
