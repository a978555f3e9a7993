import { RetryPolicy } from "@hookgate/core"
import { Mailer, OutgoingEmail } from "@hookgate/core/mail"
import { Consumer, MessageLedger } from "@hookgate/core/queue"
import { RecordingAlerter } from "@hookgate/testing"
import { Clock, Duration, Effect, Exit, Layer, Logger, LogLevel, Random, Schema } from "effect"
import { addFaults, asProcess, type FaultCounts, type FaultRates, faultyMessageLedger, noFaults } from "./faults.js"
import { makeInbox, makeSimulatedMailer } from "./mailer.js"
import { Rng, shardSeed } from "./rng.js"
import { type Shard, type ShardRange, shardsOf } from "./shards.js"
import { eachShard, inStoreWorld, type StoreKind, type StoreServices } from "./stores.js"

export interface QueueConfig {
  readonly seed: number
  readonly messages: number
  readonly store: StoreKind
  readonly honoursKeys: boolean
  readonly rates: FaultRates
  /** Messages per shard (default `DEFAULT_QUEUE_SHARD`). */
  readonly shard?: number
  readonly shards?: ShardRange
}

/** What the queue workload did, counted at quiescence. */
export interface QueueTally {
  readonly messages: number
  readonly emails: number
  /** Messages with no email that the queue did not give up on either. */
  readonly lost: number
  /** Emails beyond one per message. */
  readonly duplicates: number
  /** Messages with no email whose every copy the queue gave up on (after `MAX_DELIVERIES`): kept as dead letters. */
  readonly deadLettered: number
  readonly deliveries: number
  readonly faults: FaultCounts
}

/** Deliveries of one copy before the queue gives up on it (a dead letter). */
const MAX_DELIVERIES = 20

export const DEFAULT_QUEUE_SHARD = 5_000
/** A delivery whose consumer died is delivered again after this long. */
const VISIBILITY = Duration.seconds(30)
/** The chance that an acknowledged copy is delivered again (at-least-once). */
const REDELIVERY = 0.05

const Body = Schema.Struct({ id: Schema.String, to: Schema.String })

/**
 * Queue messages through `Consumer.handler` (and so `Consumer.once`) on the
 * store's `MessageLedger`, each message sending one email: the producer sends
 * each message 1 to 3 times, the queue redelivers on `Retry`, after a consumer
 * crash, and at random after an acknowledgement, up to `MAX_DELIVERIES` per copy.
 */
export const simulateQueue = (config: QueueConfig): Effect.Effect<QueueTally, unknown> =>
  Effect.suspend(() => {
    const chosen = shardsOf(config.messages, config.shard ?? DEFAULT_QUEUE_SHARD, config.shards)
    return Effect.map(
      eachShard(config.store, chosen, (shard) => inStoreWorld(config.store, (store) => runShard(config, shard, store))),
      (tallies) => tallies.reduce(addQueueTallies, emptyQueueTally)
    )
  })

const runShard = (config: QueueConfig, shard: Shard, storeLayer: Layer.Layer<StoreServices, unknown>) =>
  Effect.gen(function*() {
    const rng = new Rng(shardSeed(config.seed, shard.index))
    const counts = noFaults()
    const inbox = makeInbox()
    const policy = yield* RetryPolicy
    const ledger = faultyMessageLedger(yield* MessageLedger, rng, config.rates, counts)
    const mailer = makeSimulatedMailer({ honoursKeys: config.honoursKeys, leaseFor: policy.leaseFor }, inbox, rng, config.rates, counts)
    const handler = Consumer.handler({
      schema: Body,
      key: (body) => body.id,
      handle: (body) =>
        Effect.flatMap(Mailer, (m) =>
          m.send(new OutgoingEmail({ from: "shop@sim.example", to: body.to, subject: "Your receipt", text: "Thanks" }), {
            idempotencyKey: `sim/message/${body.id}`
          }))
    })
    const skew = () => (config.rates.skewMs > 0 ? rng.int(-config.rates.skewMs, config.rates.skewMs) : 0)
    let deliveries = 0
    const gaveUp = new Set<number>()
    const acked = new Set<number>()

    const copy = (i: number, copyId: string) =>
      Effect.gen(function*() {
        const body = { id: `m${i}`, to: `m${i}@sim.example` }
        for (let attempts = 1; attempts <= MAX_DELIVERIES; attempts++) {
          deliveries++
          const exit = yield* Effect.exit(asProcess(
            handler({ queue: "sim", id: copyId, body, attempts }).pipe(
              Effect.provideService(MessageLedger, ledger),
              Effect.provideService(Mailer, mailer)
            ),
            skew()
          ))
          if (Exit.isFailure(exit)) {
            if (!Exit.isInterrupted(exit)) counts.defects++
            yield* Effect.sleep(VISIBILITY) // the consumer died: delivered again when the message is visible again
          } else if (exit.value._tag === "Ack") {
            acked.add(i)
            if (!rng.chance(REDELIVERY)) return
            yield* Effect.sleep(Duration.minutes(1))
          } else {
            yield* Effect.sleep(exit.value.delay)
          }
        }
        gaveUp.add(i)
      })

    // Copies in time order over the first hour; each a fiber only while the queue holds it.
    const copies: Array<{ readonly at: number; readonly message: number; readonly n: number }> = []
    for (let i = shard.first; i < shard.last; i++) {
      const n = rng.int(1, 3)
      for (let c = 0; c < n; c++) copies.push({ at: rng.int(0, 3_600_000), message: i, n: c })
    }
    copies.sort((a, b) => a.at - b.at || a.message - b.message || a.n - b.n)
    let running = 0
    for (const c of copies) {
      const now = yield* Clock.currentTimeMillis
      if (c.at > now) yield* Effect.sleep(Duration.millis(c.at - now))
      running++
      yield* Effect.fork(Effect.ensuring(copy(c.message, `q${c.message}.${c.n}`), Effect.sync(() => running--)))
    }
    while (running > 0) yield* Effect.sleep(Duration.minutes(10))

    let emails = 0, lost = 0, duplicates = 0, deadLettered = 0
    for (let i = shard.first; i < shard.last; i++) {
      const n = inbox.emails.get(`m${i}@sim.example`) ?? 0
      emails += n
      if (n > 1) duplicates += n - 1
      if (n === 0) {
        if (gaveUp.has(i) && !acked.has(i)) deadLettered++
        else lost++
      }
    }
    return { messages: shard.last - shard.first, emails, lost, duplicates, deadLettered, deliveries, faults: { ...counts } } satisfies QueueTally
  }).pipe(
    Effect.provide(storeLayer),
    Effect.provide(Layer.merge(RetryPolicy.layer(), RecordingAlerter.layer())),
    Logger.withMinimumLogLevel(LogLevel.None),
    Effect.withRandom(Random.make(shardSeed(config.seed, shard.index)))
  )

const emptyQueueTally: QueueTally = { messages: 0, emails: 0, lost: 0, duplicates: 0, deadLettered: 0, deliveries: 0, faults: noFaults() }

export const addQueueTallies = (a: QueueTally, b: QueueTally): QueueTally => ({
  messages: a.messages + b.messages,
  emails: a.emails + b.emails,
  lost: a.lost + b.lost,
  duplicates: a.duplicates + b.duplicates,
  deadLettered: a.deadLettered + b.deadLettered,
  deliveries: a.deliveries + b.deliveries,
  faults: addFaults(a.faults, b.faults)
})
