/**
 * @hookgate/testing/conformance: the suites every store and provider runs (needs
 * @effect/vitest; the provider suites run under node:crypto as well as Web Crypto,
 * so this entry point imports node:crypto).
 */
export { storeConformance } from "./store-conformance.js"
export { pruneConformance } from "./prune-conformance.js"
export { alertStoreConformance } from "./alert-store-conformance.js"
export { epochMillisConformance } from "./epoch-millis-conformance.js"
export { pipelineBehaviours, type Scenario } from "./pipeline-behaviours.js"
export { messageLedgerConformance } from "./message-ledger-conformance.js"
export { campaignStoreConformance, recipients, runningCampaign, TEMPLATE } from "./campaign-store-conformance.js"
export { campaignBehaviours, type CampaignScenario } from "./campaign-behaviours.js"
export type { LedgerServices } from "./ledger-services.js"
export { type HostileCase, type HostileExpectation, type MessageToSign, type PayingFields, providerConformance, type ProviderUnderTest } from "./provider-conformance.js"
export { describeEachHmac, type HmacTester, hmacImplementations, testerUnder } from "./each-hmac.js"
export {
  type ObjectToPublish,
  reconcileConformance,
  type ReconcileWorld,
  type ReconcilingProviderUnderTest
} from "./reconcile-conformance.js"
