import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { campaignBatchMessage, type CampaignState } from "./campaign.js"
import { step } from "../internal/spans.js"
import { CampaignQueue } from "./campaign-queue.js"
import { CampaignStore } from "./campaign-store.js"
import { CampaignNotFound, CampaignStateError } from "./errors.js"
import { campaignStatus } from "./status.js"

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

const move = (campaignId: string, operation: string, from: ReadonlyArray<CampaignState>, to: CampaignState, already: ReadonlyArray<CampaignState>) =>
  Effect.gen(function*() {
    const store = yield* CampaignStore
    const now = yield* Clock.currentTimeMillis
    const moved = yield* store.transition(campaignId, { from, to, now })
    if (Option.isSome(moved)) return
    const row = yield* store.get(campaignId)
    if (Option.isNone(row)) return yield* new CampaignNotFound({ campaignId })
    if (!already.includes(row.value.state)) {
      return yield* new CampaignStateError({ campaignId, state: row.value.state, operation })
    }
  })

/** Starts a draft: fixes its batch slots and sends a message per batch. Starting a running campaign dispatches again. */
export const startCampaign = (campaignId: string) =>
  Effect.gen(function*() {
    const store = yield* CampaignStore
    yield* store.seal(campaignId, yield* Clock.currentTimeMillis)
    yield* move(campaignId, "start (resume it instead)", ["draft"], "running", ["running"])
    yield* dispatchCampaign(campaignId)
    return yield* campaignStatus(campaignId)
  }).pipe(step("campaign.start", { campaignId }))

/**
 * Stops new batches from being leased: a delivery that arrives after the pause
 * acknowledges its message without sending. Batches already leased finish.
 */
export const pauseCampaign = (campaignId: string) =>
  Effect.zipRight(move(campaignId, "pause", ["running"], "paused", ["paused"]), campaignStatus(campaignId)).pipe(
    step("campaign.pause", { campaignId })
  )

/** Continues a paused campaign where it stopped: the batches still open are dispatched again. */
export const resumeCampaign = (campaignId: string) =>
  Effect.gen(function*() {
    yield* move(campaignId, "resume", ["paused"], "running", ["running"])
    yield* dispatchCampaign(campaignId)
    return yield* campaignStatus(campaignId)
  }).pipe(step("campaign.resume", { campaignId }))
