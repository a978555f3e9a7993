import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { CampaignStatus } from "./campaign.js"
import * as Metrics from "../observability/Metrics.js"
import { CampaignStore } from "./campaign-store.js"
import { CampaignNotFound } from "./errors.js"
import { shownState } from "./transitions.js"

/**
 * A campaign's ledger at a glance. Every figure is counted from the rows, so
 * `total = sent + failed + remaining + reserved` always holds. The counters are
 * also set as gauges (`hookgate_campaign_recipients{campaign,counter}`).
 */
export const campaignStatus = (campaignId: string) =>
  Effect.gen(function*() {
    const store = yield* CampaignStore
    const row = yield* store.get(campaignId)
    if (Option.isNone(row)) return yield* new CampaignNotFound({ campaignId })
    const counts = yield* store.counts(campaignId)
    const total = counts.queued + counts.reserved + counts.sent + counts.failed
    const status = new CampaignStatus({
      id: campaignId,
      state: shownState(row.value.state, counts),
      total,
      sent: counts.sent,
      reserved: counts.reserved,
      failed: counts.failed,
      remaining: counts.queued,
      duplicatesPrevented: row.value.duplicatesPrevented
    })
    yield* Metrics.campaignStatus(campaignId, {
      total,
      sent: status.sent,
      reserved: status.reserved,
      failed: status.failed,
      remaining: status.remaining,
      duplicates_prevented: status.duplicatesPrevented
    })
    return status
  })
