import { AlertStore } from "@hookgate/core/alerts"
import { Lease, OrderStore, receive, RetryPolicy, sweep } from "@hookgate/core"
import { Mailer } from "@hookgate/core/mail"
import { Providers, WebhookRequest } from "@hookgate/core/providers"
import { layerMemoryStore, layerTestRenderer, paidEvent, RecordingAlerter } from "@hookgate/core/testing"
import { SqliteStore } from "@hookgate/store-sqlite"
import { Duration, Effect, Exit, Fiber, Layer, Logger, LogLevel, Random } from "effect"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"
import { type BrokenVariant, breakStore } from "./broken.js"
import { asProcess, type FaultCounts, type FaultRates, faultyOrderStore } from "./faults.js"
import { makeInbox, makeSimulatedMailer } from "./mailer.js"
import { makeSimProvider, SIM_PROVIDER, signedHeaders } from "./provider.js"
import { Rng } from "./rng.js"
import { type OrderTally, tallyOrders } from "./tally.js"

export type StoreKind = "memory" | "sqlite"

export interface OrdersConfig {
  readonly seed: number
  readonly orders: number
  readonly store: StoreKind
  readonly honoursKeys: boolean
  readonly rates: FaultRates
  readonly variant?: BrokenVariant
  /** Orders whose deliveries start together (default 5,000). */
  readonly wave?: number
}

/** Provider delivery offsets in ms: Stripe-like (to ~40 hours) and Creem-like (to ~16 hours). */
const schedules = [
  [0, 1, 5, 30, 120, 300, 600, 1200, 1800, 2400].map((m) => m * 60_000),
  [0, 0.5, 2, 10, 30, 60, 120, 240, 480, 960].map((m) => m * 60_000)
]

const STEP = Duration.minutes(30)
/** A wave that has not settled after this long leaves its unsettled orders to the tally (lost unless alerted). */
const WAVE_LIMIT = Duration.toMillis(Duration.days(4))

const storeLayer = (kind: StoreKind): Layer.Layer<OrderStore | Lease | AlertStore, unknown> =>
  kind === "memory" ? layerMemoryStore : SqliteStore.layer({ filename: ":memory:" })

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
 * faults injected at every store and mailer call, on the TestClock.
 */
export const simulateOrders = (config: OrdersConfig): Effect.Effect<OrderTally, unknown> =>
  Effect.suspend(() => runOrders(config).pipe(Effect.withRandom(Random.make(config.seed)))) // a fresh PRNG per run

const runOrders = (config: OrdersConfig) =>
  Effect.gen(function*() {
    const rng = new Rng(config.seed)
    const counts: FaultCounts = { crashes: 0, storeFailures: 0, markerFailures: 0, staleWrites: 0 }
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

    const waveSize = config.wave ?? 5000
    const acked = new Set<number>()
    for (let first = 0; first < config.orders; first += waveSize) {
      const last = Math.min(config.orders, first + waveSize)
      const fibers: Array<Fiber.RuntimeFiber<void>> = []
      for (let i = first; i < last; i++) {
        const body = paidEvent(`evt_${i}`, {
          orderId: `o${i}`,
          email: `o${i}@sim.example`,
          product: "course",
          amount: 1900,
          currency: "usd"
        })
        const request = WebhookRequest.fromParts(new TextEncoder().encode(body), signedHeaders(body))
        for (const delivery of deliveriesOf(rng)) {
          const send = Effect.suspend(() =>
            delivery.replay || !acked.has(i)
              ? faulty(asProcess(receive(SIM_PROVIDER, request), skew())).pipe(
                Effect.exit,
                Effect.map((exit) => {
                  if (Exit.isSuccess(exit)) acked.add(i)
                })
              )
              : Effect.void
          )
          fibers.push(yield* Effect.fork(Effect.zipRight(Effect.sleep(Duration.millis(delivery.at)), send)))
        }
      }
      // Drive time until every delivery is done and nothing is pending (or the limit).
      for (let waited = 0; waited < WAVE_LIMIT; waited += Duration.toMillis(STEP)) {
        yield* TestClock.adjust(STEP)
        const running = yield* Effect.forEach(fibers, (fiber) => fiber.poll)
        if (running.some((exit) => exit._tag === "None")) continue
        const stats = yield* base.store.stats
        if (stats.orders.pending === 0) break
      }
      yield* Effect.forEach(fibers, Fiber.interrupt, { discard: true })
    }
    yield* Fiber.interrupt(sweeper)
    return yield* tallyOrders(base.store, yield* AlertStore, config.orders, inbox, counts)
  }).pipe(
    Effect.provide(Layer.mergeAll(
      storeLayer(config.store),
      RecordingAlerter.layer(),
      layerTestRenderer,
      RetryPolicy.layer(),
      Providers.layer(makeSimProvider())
    )),
    Logger.withMinimumLogLevel(LogLevel.None),
    Effect.provide(TestContext.TestContext)
  )

