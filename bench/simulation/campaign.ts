import { RetryPolicy } from "@hookgate/core"
import {
  type CampaignBatchMessage,
  CampaignQueue,
  Campaigns,
  CampaignStore,
  type CampaignStoreShape
} from "@hookgate/core/campaigns"
import { Mailer } from "@hookgate/core/mail"
import { RecordingAlerter } from "@hookgate/core/testing"
import { Duration, Effect, Exit, Fiber, Layer, Logger, LogLevel, Random, Stream } from "effect"
import { simulated } from "./engine.js"
import { asProcess, type FaultRates, noFaults, faultyCampaignStore } from "./faults.js"
import { makeInbox, makeSimulatedMailer } from "./mailer.js"
import { type StoreKind, storeLayer } from "./stores.js"
import { Rng } from "./rng.js"

export interface CampaignConfig {
  readonly seed: number
  readonly recipients: number
  readonly store: StoreKind
  readonly rates: FaultRates
  /** The broken reservation: a slot delivered again is answered `Done` without leasing its reserved rows. */
  readonly skipReserved?: boolean
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
 * One campaign through the real campaign code (`Campaigns.make`: start, pause,
 * resume, `sendBatch`) with a queue that redelivers: a crashed delivery, a
 * retry and a random extra copy of a message all come back later.
 */
export const simulateCampaign = (config: CampaignConfig): Effect.Effect<CampaignTally, unknown> =>
  simulated(runCampaign(config).pipe(Effect.withRandom(Random.make(config.seed))))

const runCampaign = (config: CampaignConfig) =>
  Effect.gen(function*() {
    const rng = new Rng(config.seed)
    const counts = noFaults()
    const inbox = makeInbox()
    const policy = yield* RetryPolicy
    const base = yield* CampaignStore
    const store = faultyCampaignStore(config.skipReserved === true ? skippingReserved(base) : base, rng, config.rates, counts)
    const mailer = makeSimulatedMailer({ honoursKeys: true, leaseFor: policy.leaseFor }, inbox, rng, config.rates, counts)
    const queue: Array<CampaignBatchMessage> = []
    const campaigns = yield* Campaigns.make.pipe(
      Effect.provideService(CampaignStore, store),
      Effect.provideService(Mailer, mailer),
      Effect.provideService(CampaignQueue, { enqueue: (messages) => Effect.sync(() => void queue.push(...messages)) })
    )
    const emails = Array.from({ length: config.recipients }, (_, i) => `r${i}@sim.example`)
    yield* campaigns.create({
      id: "sim",
      template: { from: "shop@sim.example", subject: "News", text: "Hello" },
      recipients: Stream.fromIterable(emails)
    })
    yield* campaigns.start("sim")
    let deliveries = 0
    let paused = false
    while (queue.length > 0 && deliveries < config.recipients * 50) {
      const batch = queue.splice(0, queue.length)
      const fibers = []
      for (const message of batch) {
        deliveries++
        if (!paused && deliveries === Math.ceil(config.recipients / 200)) {
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
    return { recipients: config.recipients, emails: total, skipped, duplicates, failed: counted.failed, deliveries } satisfies CampaignTally
  }).pipe(
    Effect.provide(Layer.mergeAll(storeLayer(config.store), RecordingAlerter.layer(), RetryPolicy.layer())),
    Logger.withMinimumLogLevel(LogLevel.None)
  )

