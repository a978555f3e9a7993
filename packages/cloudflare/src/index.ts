/**
 * @hookgate/cloudflare: the Workers adapter. `makeWorker({ layer })` answers
 * `{ fetch, scheduled, queue }` for `export default`; bindings and secrets
 * become layers.
 */
export { makeWorker, type HookgateWorker, type MakeWorkerOptions, type WorkerServices } from "./worker.js"
export { binding, configProviderFromEnv, layerEnv, WorkerEnv } from "./env.js"
export { d1Binding, type D1BindingOptions, layerD1Store } from "./d1.js"
export { Background, type BackgroundShape, makeBackground } from "./background.js"
export { DEFERRED_DETAIL, deferredAlerter } from "./deferred-alerter.js"
export { MissingBinding, QueueNotConfigured } from "./errors.js"
export { campaignBatches, consumeBatch, layerCampaignQueue, type QueueConsumer } from "./queue.js"
export type {
  WorkerExecutionContext,
  WorkerMessage,
  WorkerMessageBatch,
  WorkerQueueProducer,
  WorkerScheduledController
} from "./runtime-types.js"
