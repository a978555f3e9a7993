import { pipelineBehaviours, storeConformance } from "@hookgate/core/conformance"
import { layerMemoryStore } from "@hookgate/core/testing"

storeConformance("in-memory", () => layerMemoryStore)
pipelineBehaviours("in-memory", () => layerMemoryStore)
