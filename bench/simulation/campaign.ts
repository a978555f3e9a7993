import { RetryPolicy } from "@hookgate/core"
import {
  type CampaignBatchMessage,
  CampaignQueue,
  Campaigns,
  CampaignStore,
  type CampaignStoreShape
} from "@hookgate/core/campaigns"
import { Mailer } from "@hookgate/core/mail"
import { RecordingAlerter } from "@hookgate/testing"
import { Duration, Effect, Exit, Fiber, Layer, Logger, LogLevel, Random, Stream } from "effect"
import { asProcess, type FaultRates, noFaults, faultyCampaignStore } from "./faults.js"
import { makeInbox, makeSimulatedMailer } from "./mailer.js"
import { eachShard, inStoreWorld, type StoreKind, type StoreServices } from "./stores.js"
import { Rng, shardSeed } from "./rng.js"
import { type Shard, type ShardRange, shardsOf } from "./shards.js"

export interface CampaignConfig {
  readonly seed: number
  readonly recipients: number
  readonly store: StoreKind
  readonly rates: FaultRates
  /** The broken reservation: a slot delivered again is answered `Done` without leasing its reserved rows. */
  readonly skipReserved?: boolean
  /** Recipients per campaign: each shard is a campaign in a world of its own (default `DEFAULT_CAMPAIGN_SHARD`). */
  readonly shard?: number
  readonly shards?: ShardRange
}

export interface CampaignTally {
  readonly recipients: number
  readonly emails: number
  /** Recipients with no email and not failed (with the owner alerted). */
  readonly skipped: number
  /** Emails beyond one per recipient. */
  readonly duplicates: number
  readonly failed: number
  readonly deliveries: number
}

export const DEFAULT_CAMPAIGN_SHARD = 20_000

const skippingReserved = (store: CampaignStoreShape): CampaignStoreShape => {
  const seen = new Set<string>()
  return {
    ...store,
    reserve: (id, batch, options) => {
      const slot = `${id}/${batch}`
      if (seen.has(slot)) return Effect.succeed({ _tag: "Done" as const, members: 0 })
      seen.add(slot)
      return store.reserve(id, batch, options)
    }
  }
}

/**
 * One campaign through the real campaign code (`Campaigns.make()`: start, pause,
 * resume, `sendBatch`) with a queue that redelivers: a crashed delivery, a
 * retry and a random extra copy of a message all come back later.
 */
export const simulateCampaign = (config: CampaignConfig): Effect.Effect<CampaignTally, unknown> =>
  Effect.suspend(() => {
    const chosen = shardsOf(config.recipients, config.shard ?? DEFAULT_CAMPAIGN_SHARD, config.shards)
    return Effect.map(
      eachShard(config.store, chosen, (shard) =>
        inStoreWorld(config.store, (store) =>
          runCampaign(config, shard, store).pipe(Effect.withRandom(Random.make(shardSeed(config.seed, shard.index)))))),
      (tallies) => tallies.reduce(addCampaignTallies, emptyCampaignTally)
    )
  })

const emptyCampaignTally: CampaignTally = { recipients: 0, emails: 0, skipped: 0, duplicates: 0, failed: 0, deliveries: 0 }

export const addCampaignTallies = (a: CampaignTally, b: CampaignTally): CampaignTally => ({
  recipients: a.recipients + b.recipients,
  emails: a.emails + b.emails,
  skipped: a.skipped + b.skipped,
  duplicates: a.duplicates + b.duplicates,
  failed: a.failed + b.failed,
  deliveries: a.deliveries + b.deliveries
})

const runCampaign = (config: CampaignConfig, shard: Shard, storeLayer: Layer.Layer<StoreServices, unknown>) =>
  Effect.gen(function*() {
    const recipients = shard.last - shard.first
    const rng = new Rng(shardSeed(config.seed, shard.index))
    const counts = noFaults()
    const inbox = makeInbox()
    const policy = yield* RetryPolicy
    const base = yield* CampaignStore
    const store = faultyCampaignStore(config.skipReserved === true ? skippingReserved(base) : base, rng, config.rates, counts)
    const mailer = makeSimulatedMailer({ honoursKeys: true, leaseFor: policy.leaseFor }, inbox, rng, config.rates, counts)
    const queue: Array<CampaignBatchMessage> = []
    const campaigns = yield* Campaigns.make().pipe(
      Effect.provideService(CampaignStore, store),
      Effect.provideService(Mailer, mailer),
      Effect.provideService(CampaignQueue, { enqueue: (messages) => Effect.sync(() => void queue.push(...messages)) })
    )
    const emails = Array.from({ length: recipients }, (_, i) => `r${shard.first + i}@sim.example`)
    yield* campaigns.create({
      id: "sim",
      template: { from: "shop@sim.example", subject: "News", text: "Hello" },
      recipients: Stream.fromIterable(emails)
    })
    yield* campaigns.start("sim")
    let deliveries = 0
    let paused = false
    while (queue.length > 0 && deliveries < recipients * 50) {
      const batch = queue.splice(0, queue.length)
      const fibers = []
      for (const message of batch) {
        deliveries++
        if (!paused && deliveries === Math.ceil(recipients / 200)) {
          paused = true
          yield* campaigns.pause("sim")
        }
        fibers.push({ message, fiber: yield* Effect.fork(Effect.exit(asProcess(campaigns.sendBatch(message)))) })
      }
      for (const { fiber, message } of fibers) {
        const exit = yield* Fiber.join(fiber)
        if (rng.chance(0.05)) queue.push(message) // the queue delivers a copy again
        if (Exit.isFailure(exit)) queue.push(message) // crashed or failed: redelivered
        else if (exit.value._tag === "InProgress" || (exit.value._tag === "Sent" && exit.value.retry > 0)) queue.push(message)
      }
      if (paused && queue.length === 0) {
        paused = false
        yield* campaigns.resume("sim").pipe(Effect.retry({ times: 20 }))
      }
      yield* Effect.sleep(Duration.sum(policy.leaseFor, Duration.minutes(1)))
    }
    const counted = yield* base.counts("sim")
    let total = 0, none = 0, duplicates = 0
    for (const email of emails) {
      const n = inbox.emails.get(email) ?? 0
      total += n
      if (n === 0) none++
      if (n > 1) duplicates += n - 1
    }
    // A failed recipient (refused address, or the cap) is alerted; any other without an email was skipped.
    const skipped = Math.max(0, none - counted.failed)
    return { recipients, emails: total, skipped, duplicates, failed: counted.failed, deliveries } satisfies CampaignTally
  }).pipe(
    Effect.provide(Layer.mergeAll(storeLayer, RecordingAlerter.layer(), RetryPolicy.layer())),
    Logger.withMinimumLogLevel(LogLevel.None)
  )

