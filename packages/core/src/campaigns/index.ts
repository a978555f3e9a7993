/**
 * @hookgate/core/campaigns: bulk sends that go out once per campaign and
 * recipient. The `Campaigns` service (create, start, pause, resume, status and
 * the batch consumer), its `CampaignStore` ledger port and `CampaignQueue`
 * producer port, the domain schemas and errors.
 */
export {
  CampaignInProcessQueue,
  Campaigns,
  type CampaignsShape,
  type InProcessCampaignsOptions
} from "./campaigns.js"
export { createCampaign, type CreateCampaignInput } from "./create.js"
export { campaignStatus } from "./status.js"
export { renderCampaignEmail } from "./render.js"
export { CampaignExists, CampaignNotFound, CampaignStateError, InvalidCampaign, InvalidRecipient, RecipientTooLarge } from "./errors.js"
export { CampaignOptions, type CampaignOptionsShape } from "./options.js"
export { BatchOutcome } from "./send-batch.js"
export { type CampaignOperation, type CampaignTransition, campaignTransitions, type ShownState } from "./transitions.js"
export * from "./campaign.js"
export * from "./campaign-store.js"
export * from "./campaign-queue.js"
