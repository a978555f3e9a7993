import { Effect } from "effect"
import { simulateCampaign } from "../simulation/campaign.js"
import { defaultRates } from "../simulation/faults.js"
import { simulateOrders } from "../simulation/orders.js"
import { simulateQueue } from "../simulation/queue.js"
import type { StoreKind } from "../simulation/stores.js"
import { expectCampaignExact, expectDuplicatesFlagged, expectExactlyOnce, expectQueueExactlyOnce } from "./simulation-checks.js"

/**
 * The fault simulation's assertions (simulation-checks.ts) on a real store with
 * real I/O (D1 over Miniflare, Postgres): small fixed-seed slices, since each
 * store call is a round trip and a world's sweeps (every 10 simulated minutes
 * for two days) cost the same whatever its size.
 */

// Faults far above production rates (harsher than simulation.test.ts's), so a slice of a few dozen orders meets every one of them.
export const harsh = { ...defaultRates, transient: 0.05, acceptedThenUnknown: 0.1, slow: 0.05, markerFails: 0.05, crash: 0.03 }

export const ordersWithKeys = (store: StoreKind, orders: number, shard?: number) =>
  Effect.gen(function*() {
    const tally = yield* simulateOrders({ seed: 1, orders, store, honoursKeys: true, rates: harsh, ...(shard === undefined ? {} : { shard }) })
    expectExactlyOnce(tally, orders)
    return tally
  })

export const ordersWithoutKeys = (store: StoreKind, orders: number, shard?: number) =>
  Effect.gen(function*() {
    const tally = yield* simulateOrders({ seed: 1, orders, store, honoursKeys: false, rates: harsh, ...(shard === undefined ? {} : { shard }) })
    expectDuplicatesFlagged(tally)
  })

export const queueWithKeys = (store: StoreKind, messages: number, shard?: number) =>
  Effect.gen(function*() {
    const tally = yield* simulateQueue({ seed: 1, messages, store, honoursKeys: true, rates: harsh, ...(shard === undefined ? {} : { shard }) })
    expectQueueExactlyOnce(tally)
  })

export const campaign = (store: StoreKind, recipients: number) =>
  Effect.gen(function*() {
    const tally = yield* simulateCampaign({ seed: 1, recipients, store, rates: harsh })
    expectCampaignExact(tally, recipients)
  })
