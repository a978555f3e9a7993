/**
 * @hookgate/testing: public test layers for hookgate and for users' own tests.
 * Each service is a namespace (`MemoryStore.layer`, `ScriptedMailer.make(options)`,
 * `TestPipeline.layer(options)`); fixtures and helpers are plain functions.
 */
export * as MemoryStore from "./MemoryStore.js"
export * as MemoryAlertStore from "./MemoryAlertStore.js"
export { memoryAlertsOf } from "./memory-alert-store.js"
export * as MemoryLedgers from "./MemoryLedgers.js"
export {
  type DeliveredEmail,
  type MailerStep,
  ScriptedMailer,
  type ScriptedMailerOptions,
  type ScriptedMailerShape
} from "./scripted-mailer.js"
export * as MailerSteps from "./MailerSteps.js"
export { RecordingAlerter } from "./recording-alerter.js"
export * as TestProvider from "./TestProvider.js"
export { paidEvent, signTestRequest, TEST_SIGNATURE_HEADER, type TestPaidOrder } from "./test-provider.js"
export { type StoreFaults, withStoreFaults } from "./faults.js"
export * as TestRenderer from "./TestRenderer.js"
export { eventually, newOrder, realPause, TEST_SECRET } from "./fixtures.js"
export * as TestPipeline from "./TestPipeline.js"
export { failureOf, type TestPipelineOptions } from "./pipeline.js"
export * as TestListing from "./TestListing.js"
