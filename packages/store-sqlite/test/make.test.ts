import { describe, expect, it } from "@effect/vitest"
import { OrderStore } from "@hookgate/core"
import { SqliteStore } from "@hookgate/store-sqlite"
import { newOrder } from "@hookgate/testing"
import { Context, Effect } from "effect"

describe("SqliteStore.make", () => {
  it.effect("builds the store services as an Effect: a Context, opened and migrated, closed with the scope", () =>
    Effect.gen(function*() {
      const T0 = 1_700_000_000_000
      const stored = yield* Effect.scoped(Effect.gen(function*() {
        const services = yield* SqliteStore.make({ filename: ":memory:" })
        return yield* Effect.flatMap(newOrder("made"), (order) =>
          Context.get(services, OrderStore).put(order, { token: crypto.randomUUID(), now: T0, until: T0 + 1_000 }))
      }))
      expect(stored._tag).toBe("Stored")
    }))
})
