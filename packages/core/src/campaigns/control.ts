import * as Effect from "effect/Effect"
import { campaignBatchMessage } from "./campaign.js"
import { spanWhenTraced } from "../kernel/spans.js"
import { CampaignQueue } from "./campaign-queue.js"
import { CampaignStore } from "./campaign-store.js"
import { campaignStatus } from "./status.js"
import { transitionCampaign } from "./transitions.js"

const QUEUE_BATCH = 100 // Cloudflare's sendBatch limit

/**
 * Sends one queue message per batch slot that still needs a delivery (never
 * reserved, or reserved and not yet sent). Extra messages are harmless: a slot
 * already sent answers `Done`, an unused slot with nobody left answers `Empty`.
 */
export const dispatchCampaign = (campaignId: string) =>
  Effect.gen(function*() {
    const store = yield* CampaignStore
    const queue = yield* CampaignQueue
    const open = yield* store.openBatches(campaignId)
    for (let i = 0; i < open.length; i += QUEUE_BATCH) {
      yield* queue.enqueue(open.slice(i, i + QUEUE_BATCH).map((batch) => campaignBatchMessage(campaignId, batch)))
    }
    return open.length
  }).pipe(spanWhenTraced("campaign.dispatch", { campaignId }))

/**
 * Starts a draft whose recipient list is complete (sealed by its create, batch slots fixed)
 * and sends a message per batch. Refused (`CampaignStateError`) while its list is still
 * being written or when it is empty (it would "complete" at once, with no email sent), and
 * once it started: of two concurrent starts, one wins.
 */
export const startCampaign = (campaignId: string) =>
  Effect.gen(function*() {
    yield* transitionCampaign(campaignId, "start")
    yield* dispatchCampaign(campaignId)
    return yield* campaignStatus(campaignId)
  }).pipe(spanWhenTraced("campaign.start", { campaignId }))

/**
 * Stops new batches from being leased: a delivery that arrives after the pause
 * acknowledges its message without sending. Batches already leased finish. Pausing a
 * paused campaign answers its status unchanged; a draft or a completed one is refused.
 */
export const pauseCampaign = (campaignId: string) =>
  Effect.zipRight(transitionCampaign(campaignId, "pause"), campaignStatus(campaignId)).pipe(
    spanWhenTraced("campaign.pause", { campaignId })
  )

/** Continues a paused campaign where it stopped: the batches still open are dispatched again. Anything but a paused campaign is refused. */
export const resumeCampaign = (campaignId: string) =>
  Effect.gen(function*() {
    yield* transitionCampaign(campaignId, "resume")
    yield* dispatchCampaign(campaignId)
    return yield* campaignStatus(campaignId)
  }).pipe(spanWhenTraced("campaign.resume", { campaignId }))
