import * as EpochMillis from "../kernel/EpochMillis.js"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { campaignBatchMessage } from "./campaign.js"
import { step } from "../kernel/spans.js"
import { CampaignQueue } from "./campaign-queue.js"
import { CampaignStore } from "./campaign-store.js"
import { CampaignStateError } from "./errors.js"
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
  }).pipe(step("campaign.dispatch", { campaignId }))

/**
 * Starts a draft: fixes its batch slots and sends a message per batch. A campaign that
 * already started is refused (`CampaignStateError`): of two concurrent starts, one wins.
 */
export const startCampaign = (campaignId: string) =>
  Effect.gen(function*() {
    const store = yield* CampaignStore
    const sealed = yield* store.seal(campaignId, yield* EpochMillis.now)
    // Never an empty list: it would "complete" at once, with no email sent.
    if (Option.isSome(sealed) && sealed.value.total === 0) {
      return yield* new CampaignStateError({
        campaignId,
        state: "draft",
        operation: "start",
        reason: "it has no recipients: create it again with its list (POST /admin/campaigns?replace=true)"
      })
    }
    yield* transitionCampaign(campaignId, "start")
    yield* dispatchCampaign(campaignId)
    return yield* campaignStatus(campaignId)
  }).pipe(step("campaign.start", { campaignId }))

/**
 * Stops new batches from being leased: a delivery that arrives after the pause
 * acknowledges its message without sending. Batches already leased finish. Pausing a
 * paused campaign answers its status unchanged; a draft or a completed one is refused.
 */
export const pauseCampaign = (campaignId: string) =>
  Effect.zipRight(transitionCampaign(campaignId, "pause"), campaignStatus(campaignId)).pipe(
    step("campaign.pause", { campaignId })
  )

/** Continues a paused campaign where it stopped: the batches still open are dispatched again. Anything but a paused campaign is refused. */
export const resumeCampaign = (campaignId: string) =>
  Effect.gen(function*() {
    yield* transitionCampaign(campaignId, "resume")
    yield* dispatchCampaign(campaignId)
    return yield* campaignStatus(campaignId)
  }).pipe(step("campaign.resume", { campaignId }))
