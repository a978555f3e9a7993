import { campaignBehaviours, campaignStoreConformance, messageLedgerConformance } from "@hookgate/testing/conformance"
import { layerMemoryAlertStore, layerMemoryLedgers } from "@hookgate/testing"
import { Layer } from "effect"

const memory = () => layerMemoryLedgers.pipe(Layer.provideMerge(layerMemoryAlertStore))

messageLedgerConformance("in-memory", memory)
campaignStoreConformance("in-memory", memory)
campaignBehaviours("in-memory", memory)
