import { expect } from "@effect/vitest"
import { lastRuns, OrderStore, sweep } from "@hookgate/core"
import { AlertStore } from "@hookgate/core/alerts"
import { type CampaignBatchMessage, CampaignQueue, Campaigns, CampaignStore } from "@hookgate/core/campaigns"
import { RecordingAlerter, ScriptedMailer, TestPipeline } from "@hookgate/testing"
import { SqlStore, type SqlStoreServices } from "@hookgate/store-sql"
import type * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer, Option, TestClock } from "effect"
import { join } from "node:path"

/** Written by release fdd4f77 through its own code (`generate-fixture.mjs`); regenerate, never edit. */
export const FIXTURE = join(import.meta.dirname, "fixtures", "fdd4f77.db")

/**
 * What test/upgrade/drive-fdd4f77.mjs made release fdd4f77 write, checked through today's
 * code on any store that opened the fixture: every row is there in its state, then today's
 * sweep and campaign batches finish the work, each email once.
 */

const ORDERS = {
  sent: "sent",
  pending: "pending",
  uncertain: "pending",
  "capped-alerted": "capped",
  "capped-unalerted": "capped",
  failed: "failed",
  killed: "pending"
} as const

/**
 * Checks the upgraded store (built from `store`) with the pipeline and the campaign service
 * around it, campaign batches kept to be sent by hand.
 */
export const checkEveryState = <E>(store: Layer.Layer<SqlStoreServices | SqlClient.SqlClient, E>): Effect.Effect<void, unknown> => {
  const queued: Array<CampaignBatchMessage> = []
  const queue = Layer.succeed(CampaignQueue, { enqueue: (messages) => Effect.sync(() => void queued.push(...messages)) })
  const pipeline = TestPipeline.layer({ store, providers: [] })
  const layer = Campaigns.layer().pipe(Layer.provideMerge(Layer.mergeAll(queue, pipeline, store)))
  return Effect.provide(checks(queued), layer)
}

const checks = (queued: Array<CampaignBatchMessage>) =>
  Effect.gen(function*() {
    // Today's migrations ran after the release's two.
    expect((yield* SqlStore.storedTimes).every((time) => time === null || Number.isInteger(time))).toBe(true)

    const store = yield* OrderStore
    const order = (id: string) => Effect.map(store.get(`test:${id}`), Option.getOrThrow)
    for (const [id, status] of Object.entries(ORDERS)) expect((yield* order(id)).status, id).toBe(status)
    expect((yield* order("sent")).messageId).not.toBeNull()
    expect(yield* order("pending")).toMatchObject({ attempts: 1, uncertain: false, leaseToken: null })
    expect(yield* order("uncertain")).toMatchObject({ attempts: 1, uncertain: true })
    expect((yield* order("killed")).leaseToken).not.toBeNull()
    expect((yield* store.stats).orders).toEqual({ pending: 3, sent: 1, failed: 1, capped: 2, unknown: 0 })
    // The release kept no attempt history: every order has none, and no run is recorded.
    for (const id of Object.keys(ORDERS)) expect(yield* store.attempts(`test:${id}`, { limit: 10 }), id).toEqual([])
    expect(yield* lastRuns).toEqual({ sweep: null, reconcile: null })

    const alerts = new Map((yield* Effect.flatMap(AlertStore, (s) => s.list({ limit: 10 }))).map((a) => [a.orderKey, a]))
    expect(alerts.size).toBe(3)
    expect(alerts.get("test:capped-alerted")).toMatchObject({ kind: "capped", deliveryError: null })
    expect(alerts.get("test:capped-alerted")!.deliveredAt).not.toBeNull()
    expect(alerts.get("test:failed")).toMatchObject({ kind: "failed", deliveryError: null })
    expect(alerts.get("test:capped-unalerted")).toMatchObject({ kind: "capped", deliveredAt: null, deliveryError: "alert channel is down" })

    const campaigns = yield* Campaigns
    expect(yield* campaigns.status("running")).toMatchObject({ state: "running", total: 250, sent: 100, remaining: 150, failed: 0 })
    expect(yield* campaigns.status("paused")).toMatchObject({ state: "paused", total: 150, sent: 100, remaining: 50, failed: 0 })
    // Their recipient lists are complete (migration 0010 counts every older campaign as sealed).
    const campaignStore = yield* CampaignStore
    for (const id of ["running", "paused"]) {
      expect(Option.getOrThrow(yield* campaignStore.get(id))).toMatchObject({ sealed: true, batches: id === "running" ? 3 : 2 })
    }

    // Today's release takes over, once every backoff is due and the killed sender's lease has expired.
    const newest = Math.max(...(yield* SqlStore.storedTimes).filter((t): t is number => typeof t === "number"))
    yield* TestClock.setTime(newest + 2 * 24 * 60 * 60 * 1000)
    const report = yield* sweep()
    expect(report).toMatchObject({ sent: 3, alertsAttempted: 1, alertsDelivered: 1 })
    const second = yield* sweep()
    expect(second.scanned).toBe(0)
    const mailer = yield* ScriptedMailer
    const orderEmails = (yield* mailer.delivered).map((d) => d.email.to).sort()
    expect(orderEmails).toEqual(["killed@example.com", "pending@example.com", "uncertain@example.com"])
    for (const id of ["pending", "uncertain", "killed"]) expect((yield* order(id)).status, id).toBe("sent")
    // Today's attempts are kept: one row each, after the release's (uncounted) history.
    for (const id of ["pending", "uncertain", "killed"]) {
      const attempts = yield* store.attempts(`test:${id}`, { limit: 10 })
      expect(attempts.map((a) => a.outcome), id).toEqual(["sent"])
    }
    expect((yield* lastRuns).sweep?.report).toEqual(second)
    // The killed sender's email may be out: taking its expired lease over marks it uncertain.
    expect((yield* order("killed")).uncertain).toBe(true)
    const retried = yield* Effect.flatMap(RecordingAlerter, (a) => a.attempts)
    expect(retried.map((a) => a.orderKey)).toEqual(["test:capped-unalerted"])

    // Both campaigns finish, every recipient emailed once: the release sent the first 100 of each.
    yield* campaigns.dispatch("running")
    yield* campaigns.resume("paused")
    while (queued.length > 0) yield* campaigns.sendBatch(queued.shift()!)
    expect(yield* campaigns.status("running")).toMatchObject({ total: 250, sent: 250, remaining: 0, failed: 0, reserved: 0 })
    expect(yield* campaigns.status("paused")).toMatchObject({ total: 150, sent: 150, remaining: 0, failed: 0, reserved: 0 })
    const campaignEmails = (yield* mailer.delivered).map((d) => d.email.to).filter((to) => /^[rp]\d+@/.test(to)).sort()
    const expected = [
      ...Array.from({ length: 150 }, (_, i) => `r${100 + i}@example.com`),
      ...Array.from({ length: 50 }, (_, i) => `p${100 + i}@example.com`)
    ].sort()
    expect(campaignEmails).toEqual(expected)
  })
