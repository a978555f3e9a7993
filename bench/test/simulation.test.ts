import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { defaultRates } from "../simulation/faults.js"
import { simulateCampaign } from "../simulation/campaign.js"
import { simulateOrders } from "../simulation/orders.js"
import { simulateQueue } from "../simulation/queue.js"
import { addTallies } from "../simulation/tally.js"
import { expectCampaignExact, expectDuplicatesFlagged, expectExactlyOnce, expectQueueExactlyOnce } from "./simulation-checks.js"

// Faults well above production rates, so a few hundred orders meet every one of them.
const harsh = { ...defaultRates, transient: 0.05, acceptedThenUnknown: 0.05, slow: 0.03, markerFails: 0.03, crash: 0.02 }
const SEEDS = [1, 7]
const ORDERS = 150

describe("the fault simulation (real pipeline, memory store, simulated time)", () => {
  for (const seed of SEEDS) {
    it.effect(`seed ${seed}: a key-honouring mailer inside its window: nothing lost, no duplicate`, () =>
      Effect.gen(function*() {
        const tally = yield* simulateOrders({ seed, orders: ORDERS, store: "memory", honoursKeys: true, rates: harsh })
        expectExactlyOnce(tally, ORDERS)
      }), 120_000)

    it.effect(`seed ${seed}: a mailer that ignores keys: nothing lost, every duplicate flagged`, () =>
      Effect.gen(function*() {
        expectDuplicatesFlagged(yield* simulateOrders({ seed, orders: ORDERS, store: "memory", honoursKeys: false, rates: harsh }))
      }), 120_000)
  }

  it.effect("webhooks never delivered: orders lost without reconciliation, none lost with it, each emailed once", () =>
    Effect.gen(function*() {
      const rates = { ...harsh, neverDelivered: 0.1 }
      const without = yield* simulateOrders({ seed: 5, orders: ORDERS, store: "memory", honoursKeys: true, rates })
      // About a tenth of the orders never reach hookgate: nothing else can find them.
      expect(without.lost).toBeGreaterThan(5)
      expect(without.lost).toBeLessThan(40)
      const withReconciliation = yield* simulateOrders({
        seed: 5,
        orders: ORDERS,
        store: "memory",
        honoursKeys: true,
        rates,
        reconcileEvery: "1 hour"
      })
      expectExactlyOnce(withReconciliation, ORDERS)
    }), 240_000)

  it.effect("the same seed gives the same tally, however the shards are split", () =>
    Effect.gen(function*() {
      const config = { seed: 3, orders: 120, store: "memory", honoursKeys: false, rates: harsh, shard: 40 } as const
      const whole = yield* simulateOrders(config)
      expect(yield* simulateOrders(config)).toEqual(whole)
      const first = yield* simulateOrders({ ...config, shards: { from: 0, to: 1 } })
      const rest = yield* simulateOrders({ ...config, shards: { from: 1, to: 3 } })
      expect(addTallies(first, rest)).toEqual(whole)
    }), 120_000)

  it.effect("is not blind: insert-then-act without a lease loses orders", () =>
    Effect.gen(function*() {
      const tally = yield* simulateOrders({ seed: 1, orders: ORDERS, store: "memory", honoursKeys: true, rates: harsh, variant: "insert-then-act" })
      expect(tally.lost).toBeGreaterThan(0)
    }), 120_000)

  // As spin found (docs/architecture.md), losing the guard does no end-to-end damage by itself: every stale
  // token comes from a takeover, which marks the order uncertain, so duplicates stay flagged. What the
  // simulation does see is the guard's own property: writes under a token that no longer held the lease.
  it.effect("is not blind: without the token guard, stale tokens change orders", () =>
    Effect.gen(function*() {
      const tally = yield* simulateOrders({
        seed: 1,
        orders: ORDERS,
        store: "memory",
        honoursKeys: false,
        rates: { ...harsh, slow: 0.5 },
        variant: "no-token-guard"
      })
      expect(tally.faults.staleWrites).toBeGreaterThan(0)
      expect(tally.lost).toBe(0)
    }), 120_000)
})

describe("the queue simulation (Consumer.handler and Consumer.once on the MessageLedger, redelivering queue)", () => {
  for (const store of ["memory", "sqlite"] as const) {
    it.effect(`${store}: a key-honouring mailer: no message lost, none sent twice`, () =>
      Effect.gen(function*() {
        expectQueueExactlyOnce(yield* simulateQueue({ seed: 1, messages: 300, store, honoursKeys: true, rates: harsh }))
      }), 120_000)
  }

  it.effect("a mailer that ignores keys: no message lost, and the unrecorded completions show as duplicates", () =>
    Effect.gen(function*() {
      const tally = yield* simulateQueue({ seed: 1, messages: 300, store: "memory", honoursKeys: false, rates: harsh })
      expect(tally.lost).toBe(0)
      expect(tally.duplicates).toBeGreaterThan(0)
    }), 120_000)
})

describe("the campaign simulation (real campaign code, redelivering queue, pause and resume)", () => {
  for (const store of ["memory", "sqlite"] as const) {
    it.effect(`${store}: no recipient skipped, none sent twice`, () =>
      Effect.gen(function*() {
        expectCampaignExact(yield* simulateCampaign({ seed: 1, recipients: 600, store, rates: harsh }), 600)
      }), 120_000)
  }

  it.effect("is not blind: a reservation that skips reserved rows skips recipients", () =>
    Effect.gen(function*() {
      const tally = yield* simulateCampaign({ seed: 1, recipients: 600, store: "memory", rates: harsh, skipReserved: true })
      expect(tally.skipped).toBeGreaterThan(0)
    }), 120_000)
})

// The default RetryPolicy fitting Resend's 24-hour key window, and a stretched one refused when its
// layer is built: packages/core/test/key-window.test.ts (TestClock over the real pipeline and sweep).
