import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { disposeStores } from "../simulation/stores.js"
import { campaign, ordersWithKeys, ordersWithoutKeys, queueWithKeys } from "./simulation-stores.js"

// Postgres on a throwaway server (store-pg's PgTestServer), a fresh database per shard. The worlds
// run one at a time: pg's calls are tracked through its prototypes, for the world that is running.
afterAll(disposeStores)

describe("the fault simulation on Postgres, real pipeline, simulated time", () => {
  it.effect("a key-honouring mailer: nothing lost, no duplicate; the same seed gives the same tally", () =>
    Effect.gen(function*() {
      const first = yield* ordersWithKeys("pg", 25)
      expect(yield* ordersWithKeys("pg", 25)).toEqual(first)
    }), 60_000)

  it.effect("a mailer that ignores keys: nothing lost, every duplicate flagged", () => ordersWithoutKeys("pg", 25), 60_000)

  it.effect("queue messages through Consumer.once: none lost, none sent twice", () => queueWithKeys("pg", 40), 60_000)

  it.effect("a campaign: no recipient skipped, none sent twice", () => campaign("pg", 150), 60_000)
})
