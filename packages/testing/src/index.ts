/**
 * @hookgate/testing: public test layers for hookgate and for users' own tests.
 */
export { layerMemoryStore, makeMemoryStore } from "./memory-store.js"
export { layerMemoryAlertStore, makeMemoryAlertStore, memoryAlertsOf } from "./memory-alert-store.js"
export {
  type DeliveredEmail,
  makeScriptedMailer,
  type MailerStep,
  MailerSteps,
  ScriptedMailer,
  type ScriptedMailerOptions,
  type ScriptedMailerShape
} from "./scripted-mailer.js"
export { RecordingAlerter } from "./recording-alerter.js"
export { makeTestProvider, paidEvent, signTestRequest, TEST_SIGNATURE_HEADER, type TestPaidOrder } from "./test-provider.js"
export { type StoreFaults, withStoreFaults } from "./faults.js"
export { layerTestRenderer } from "./renderer.js"
export { eventually, newOrder, realPause, TEST_SECRET } from "./fixtures.js"
export {
  layerMemoryLedgers,
  makeMemoryCampaignStore,
  makeMemoryDeadLetters,
  makeMemoryMessageLedger
} from "./memory-ledgers.js"
export { failureOf, layerTestPipeline, type TestPipelineOptions } from "./pipeline.js"
export { makeTestListing, type TestListing } from "./test-listing.js"
