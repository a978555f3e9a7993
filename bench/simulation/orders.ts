import { AlertStore } from "@hookgate/core/alerts"
import { Lease, parseDuration, OrderStore, receive, reconcile, ReconcileCursors, RetryPolicy, sweep } from "@hookgate/core"
import { Mailer } from "@hookgate/core/mail"
import { NodeHmac } from "@hookgate/core/node"
import { Providers, type WebhookProvider, WebhookRequest } from "@hookgate/core/providers"
import { paidEvent, RecordingAlerter, TestListing, TestRenderer } from "@hookgate/testing"
import { Cause, Clock, Duration, Effect, Exit, Fiber, Layer, Logger, LogLevel, Option, Random, Schedule } from "effect"
import { type BrokenVariant, breakStore } from "./broken.js"
import { asProcess, type FaultRates, noFaults, faultyOrderStore } from "./faults.js"
import { makeInbox, makeSimulatedMailer } from "./mailer.js"
import { makeSimProvider, SIM_PROVIDER, signedHeaders } from "./provider.js"
import { Rng, shardSeed } from "./rng.js"
import { type Shard, type ShardRange, shardsOf } from "./shards.js"
import { eachShard, inStoreWorld, type StoreKind, type StoreServices } from "./stores.js"
import { addTallies, type OrderTally, tallyOrders } from "./tally.js"

export interface OrdersConfig {
  readonly seed: number
  readonly orders: number
  readonly store: StoreKind
  readonly honoursKeys: boolean
  readonly rates: FaultRates
  readonly variant?: BrokenVariant
  /** Orders per shard: a world of its own (store, clock, scheduler) whose tally is added to the others' (default 2,000). */
  readonly shard?: number
  /** Only these shards (by index), for splitting a run across processes; default all. */
  readonly shards?: ShardRange
  /** Reconcile with the provider's listing this often (every order is listed, paid at time 0); default never. */
  readonly reconcileEvery?: Duration.DurationInput | string
}

/** Provider delivery offsets in ms: Stripe-like (to ~40 hours) and Creem-like (to ~16 hours). */
const schedules = [
  [0, 1, 5, 30, 120, 300, 600, 1200, 1800, 2400].map((m) => m * 60_000),
  [0, 0.5, 2, 10, 30, 60, 120, 240, 480, 960].map((m) => m * 60_000)
]

const STEP = Duration.minutes(30)
/** A shard that has not settled this long after its last delivery leaves its unsettled orders to the tally (lost unless alerted). */
const SETTLE_LIMIT = Duration.toMillis(Duration.days(4))

export const DEFAULT_SHARD = 2_000

/** One order's deliveries: 1–3 concurrent at first, then replays on its provider's schedule, 1–10 in all. */
const deliveriesOf = (rng: Rng) => {
  const schedule = schedules[rng.int(0, 1)]!
  const total = rng.int(1, 10)
  const concurrent = Math.min(total, rng.int(1, 3))
  const offsets: Array<{ readonly at: number; readonly replay: boolean }> = []
  for (let i = 0; i < concurrent; i++) offsets.push({ at: 0, replay: true })
  for (let j = 1; j < schedule.length; j++) offsets.push({ at: schedule[j]!, replay: concurrent + j - 1 < total })
  return offsets
}

/**
 * Orders through the real pipeline (`receive`, `sweep`) on a real store, with
 * faults injected at every store and mailer call, in simulated time. The orders
 * are cut into shards, each run in a world of its own (a fresh store, PRNG seeded
 * from the seed and the shard's index), and the shards' tallies are added: the
 * same seed gives the same table whatever the machine and however the shards
 * are split across processes.
 */
export const simulateOrders = (config: OrdersConfig): Effect.Effect<OrderTally, unknown> =>
  Effect.suspend(() => {
    const chosen = shardsOf(config.orders, config.shard ?? DEFAULT_SHARD, config.shards)
    // The provider is made once, outside the simulated worlds: making it imports its key through Web Crypto, a real promise.
    return Effect.flatMap(makeSimProvider(), (provider) =>
      eachShard(config.store, chosen, (shard) => inStoreWorld(config.store, (store) => runShard(config, shard, provider, store))))
      .pipe(Effect.map((tallies) => tallies.reduce(addTallies)))
  })

/** Order `i`'s paying event, as its webhook carries it and the provider's listing returns it. */
const orderBody = (i: number) =>
  paidEvent(`evt_${i}`, { orderId: `o${i}`, email: `o${i}@sim.example`, product: "course", amount: 1900, currency: "usd" })

const runShard = (
  config: OrdersConfig,
  shard: Shard,
  provider: WebhookProvider,
  storeLayer: Layer.Layer<StoreServices, unknown>
) =>
  Effect.gen(function*() {
    const rng = new Rng(shardSeed(config.seed, shard.index))
    const counts = noFaults()
    const inbox = makeInbox()
    const policy = yield* RetryPolicy
    const base = { store: yield* OrderStore, lease: yield* Lease }
    const broken = breakStore(config.variant ?? "none", base.store, base.lease)
    const { lease, store } = faultyOrderStore(broken.store, broken.lease, rng, config.rates, counts)
    const mailer = makeSimulatedMailer({ honoursKeys: config.honoursKeys, leaseFor: policy.leaseFor }, inbox, rng, config.rates, counts)
    const faulty = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      effect.pipe(
        Effect.provideService(OrderStore, store),
        Effect.provideService(Lease, lease),
        Effect.provideService(Mailer, mailer)
      )
    const skew = () => (config.rates.skewMs > 0 ? rng.int(-config.rates.skewMs, config.rates.skewMs) : 0)

    // The sweep on its Schedule; each pass is a process of its own (a crash ends the pass, the next one runs).
    const sweeper = yield* Effect.fork(
      faulty(asProcess(sweep({ limit: 500 }), skew())).pipe(Effect.exit, Effect.repeat(policy.sweepEvery))
    )

    // The provider's deliveries, in time order; each is forked when its time comes, so only the
    // requests in flight are fibers (forking them all up front kept tens of thousands alive).
    const deliveries: Array<{ readonly at: number; readonly order: number; readonly replay: boolean }> = []
    const neverDelivered = config.rates.neverDelivered ?? 0
    for (let i = shard.first; i < shard.last; i++) {
      // Drawn only when the fault is on, so the tables of runs without it stay as they were.
      const lostWebhook = neverDelivered > 0 && rng.chance(neverDelivered)
      for (const delivery of deliveriesOf(rng)) if (!lostWebhook) deliveries.push({ ...delivery, order: i })
    }
    // Reconciliation: the provider lists every paid order (its webhook delivered or not), read on a Schedule.
    const reconciler = config.reconcileEvery === undefined ? Option.none() : Option.some(yield* Effect.gen(function*() {
      const listing = yield* TestListing.make(SIM_PROVIDER)
      for (let i = shard.first; i < shard.last; i++) yield* listing.add(orderBody(i), 0)
      const listed = Providers.layer(Effect.succeed({ ...provider, reconcile: listing.source }))
      const cursors = yield* ReconcileCursors.makeMemory()
      const given = config.reconcileEvery!
      // A string as the command line gives it (the job crosses to a worker thread as JSON), else a Duration input.
      const every = typeof given === "string" ? Option.getOrThrow(parseDuration(given)) : Duration.decode(given)
      // The first run one period in, as a gateway started before the orders: most webhooks come first.
      return yield* Effect.fork(Effect.zipRight(
        Effect.sleep(every),
        faulty(asProcess(reconcile({ concurrency: 1 }), skew())).pipe(
          Effect.provide(listed),
          Effect.provideService(ReconcileCursors, cursors),
          Effect.exit,
          Effect.repeat(Schedule.spaced(every))
        )
      ))
    }))
    deliveries.sort((a, b) => a.at - b.at || a.order - b.order) // stable: an order's own deliveries keep their order
    const acked = new Set<number>()
    let inFlight = 0
    const request = (i: number) => {
      const body = orderBody(i)
      return WebhookRequest.fromParts(new TextEncoder().encode(body), signedHeaders(body))
    }
    for (const delivery of deliveries) {
      const now = yield* Clock.currentTimeMillis
      if (delivery.at > now) yield* Effect.sleep(Duration.millis(delivery.at - now))
      // A replay the provider would not send: it already had a 2xx for this order.
      if (!delivery.replay && acked.has(delivery.order)) continue
      inFlight++
      yield* Effect.fork(
        faulty(asProcess(receive(SIM_PROVIDER, request(delivery.order)), skew())).pipe(
          Effect.exit,
          Effect.map((exit) => {
            inFlight--
            if (Exit.isSuccess(exit)) acked.add(delivery.order)
            else if (!Exit.isInterrupted(exit) && Cause.isDie(exit.cause)) counts.defects++
          })
        )
      )
    }
    // Every delivery done; then time runs (the sweep with it) until no order is pending, or the limit.
    for (let waited = 0; waited < SETTLE_LIMIT && (inFlight > 0 || (yield* base.store.stats).orders.pending > 0); waited += Duration.toMillis(STEP)) {
      yield* Effect.sleep(STEP)
    }
    yield* Fiber.interrupt(sweeper)
    if (Option.isSome(reconciler)) yield* Fiber.interrupt(reconciler.value)
    return yield* tallyOrders(base.store, yield* AlertStore, shard, inbox, counts)
  }).pipe(
    Effect.provide(Layer.mergeAll(
      storeLayer,
      RecordingAlerter.layer(),
      TestRenderer.layer,
      RetryPolicy.layer(),
      Providers.layer(Effect.succeed(provider)),
      // As on the Node gateway: the fulfilment hash on node:crypto, synchronous as this engine needs.
      NodeHmac.layer()
    )),
    Logger.withMinimumLogLevel(LogLevel.None),
    Effect.withRandom(Random.make(shardSeed(config.seed, shard.index)))
  )
