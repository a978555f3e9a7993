import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { type PulledEvent, type ReconcileSource, reconcileWith, VerifiedEvent } from "@hookgate/core/providers"

/** An in-memory listing for the test provider: events added here are what `list` answers, newest first. */
export interface TestListing {
  readonly source: ReconcileSource
  /** Adds the event (its JSON body, as the test provider's webhook carries it), created at `created` (epoch ms). */
  readonly add: (body: string, created: number) => Effect.Effect<void>
}

/** A listing over events kept in memory (for the test provider: `TestProvider.make({ reconcile: listing.source })`). */
const testListing = (provider: string): TestListing => {
  const events: Array<PulledEvent> = []
  return {
    source: reconcileWith((since) =>
      Stream.suspend(() =>
        Stream.fromChunk(Chunk.fromIterable(
          events.filter((e) => e.created >= since).sort((a, b) => b.created - a.created)
        ))
      )
    ),
    add: (body, created) =>
      Effect.sync(() => {
        const payload = JSON.parse(body) as { id: string; type: string }
        events.push({ created, event: new VerifiedEvent({ provider, id: payload.id, type: payload.type, payload }) })
      })
  }
}

/** A fresh listing; `provider` names the provider its events are for (`"test"`). */
export const make = (provider = "test"): Effect.Effect<TestListing> => Effect.sync(() => testListing(provider))
