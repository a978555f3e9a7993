import { campaignBehaviours, campaignStoreConformance, messageLedgerConformance } from "@hookgate/testing/conformance"
import { MemoryAlertStore, MemoryLedgers } from "@hookgate/testing"
import { Layer } from "effect"

const memory = () => MemoryLedgers.layer.pipe(Layer.provideMerge(MemoryAlertStore.layer))

messageLedgerConformance("in-memory", memory)
campaignStoreConformance("in-memory", memory)
campaignBehaviours("in-memory", memory)
