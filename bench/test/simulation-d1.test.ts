import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { disposeStores } from "../simulation/stores.js"
import { campaign, ordersWithKeys, ordersWithoutKeys, queueWithKeys } from "./simulation-stores.js"

// D1 on Miniflare's workerd, a fresh database per shard. Each world waits on its own round trips to
// workerd, not on the CPU, so the shards and the tests run concurrently.
afterAll(disposeStores)

describe.concurrent("the fault simulation on D1 (Miniflare), real pipeline, simulated time", () => {
  it.effect("a key-honouring mailer: nothing lost, no duplicate; the same seed gives the same tally", () =>
    Effect.gen(function*() {
      const [first, second] = yield* Effect.all([ordersWithKeys("d1", 20), ordersWithKeys("d1", 20)], { concurrency: 2 })
      expect(second).toEqual(first)
    }), 60_000)

  it.effect("a mailer that ignores keys: nothing lost, every duplicate flagged", () => ordersWithoutKeys("d1", 20), 60_000)

  it.effect("queue messages through Consumer.once: none lost, none sent twice", () => queueWithKeys("d1", 20), 60_000)

  it.effect("a campaign: no recipient skipped, none sent twice", () => campaign("d1", 100), 60_000)
})
