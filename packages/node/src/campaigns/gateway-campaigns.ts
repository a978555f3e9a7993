import { CampaignInProcessQueue, Campaigns } from "@hookgate/core/campaigns"
import { MailerCircuit } from "@hookgate/core/mail"
import { type Duration, Effect, Layer, Schedule } from "effect"

/**
 * Sends the open batches of running campaigns whenever the in-process queue is
 * idle: on start (the queue lives in memory, so a restart lost its messages)
 * and after `hookgate campaigns start|resume` ran in another process. Extra
 * batch messages are harmless (a sent batch answers Done). A campaign found with
 * nothing open is skipped until it changes state. While the mailer's breaker holds
 * (misconfigured, its next probe not yet due) nothing is dispatched.
 */
export const campaignWatcher = (every: Duration.DurationInput) =>
  Effect.gen(function*() {
    const campaigns = yield* Campaigns
    const queue = yield* CampaignInProcessQueue
    const circuit = yield* MailerCircuit
    const finished = new Map<string, number>()
    const tick = Effect.gen(function*() {
      if ((yield* queue.stats).outstanding > 0 || (yield* circuit.holding)) return
      for (const row of yield* campaigns.list({ limit: 1000 })) {
        if (row.state !== "running" || finished.get(row.id) === row.updatedAt) continue
        const dispatched = yield* campaigns.dispatch(row.id)
        if (dispatched === 0) finished.set(row.id, row.updatedAt)
        else yield* Effect.logInfo("campaign dispatched").pipe(Effect.annotateLogs({ campaignId: row.id, batches: dispatched }))
      }
    }).pipe(Effect.catchAll((error) => Effect.logError("campaign watcher failed", error)))
    yield* Effect.repeat(tick, Schedule.spaced(every))
  })

/** The watcher as a layer: it runs for the server's lifetime. */
export const layerCampaignWatcher = (every: Duration.DurationInput) =>
  Layer.scopedDiscard(Effect.forkScoped(campaignWatcher(every)))
