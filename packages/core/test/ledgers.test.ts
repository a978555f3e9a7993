import { campaignBehaviours, campaignStoreConformance, messageLedgerConformance } from "@hookgate/core/conformance"
import { layerMemoryLedgers, layerMemoryStore } from "@hookgate/core/testing"
import { Layer } from "effect"

const memory = () => Layer.merge(layerMemoryStore, layerMemoryLedgers)

messageLedgerConformance("in-memory", memory)
campaignStoreConformance("in-memory", memory)
campaignBehaviours("in-memory", memory)
