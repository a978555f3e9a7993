/**
 * The Workers adapter: `makeWorker({ layer })` answers `{ fetch, scheduled, queue }`
 * for `export default`; `binding` and `layerD1Store` read bindings from `env`,
 * `configProviderFromEnv` reads vars and secrets; `campaignBatches` and
 * `layerCampaignQueue` run campaigns on a Cloudflare Queue.
 */
export { type HookgateWorker, makeWorker, type MakeWorkerOptions, type WorkerServices } from "./worker.js"
export { binding, configProviderFromEnv, WorkerEnv } from "./env.js"
export { d1Binding, type D1BindingOptions, layerD1Store } from "./d1.js"
export { Background, type BackgroundShape } from "./background.js"
export { DEFERRED_DETAIL } from "./deferred-alerter.js"
export { MissingBinding, QueueNotConfigured } from "./errors.js"
export { campaignBatches, layerCampaignQueue, type QueueConsumer } from "./queue.js"
export type {
  WorkerExecutionContext,
  WorkerMessage,
  WorkerMessageBatch,
  WorkerQueueProducer,
  WorkerScheduledController
} from "./runtime-types.js"
