import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { Fulfilment, fulfilmentHash, NewOrder } from "@hookgate/core"

export const TEST_SECRET = Redacted.make("whsec_conformance_secret")

/** A new order for store-level tests; the email changes the payload hash. */
export const newOrder = (id: string, email = `${id}@example.com`) =>
  Effect.gen(function*() {
    const fulfilment = new Fulfilment({
      orderKey: `test:${id}`,
      email,
      product: "licence-pro",
      amount: 4900,
      currency: "eur",
      metadata: { plan: "pro" }
    })
    return new NewOrder({
      provider: "test",
      eventId: `evt_${id}`,
      eventType: "order.paid",
      fulfilment,
      payloadHash: yield* fulfilmentHash(fulfilment)
    })
  })

// A real pause (not Effect's Clock, which TestClock freezes), so that work outside
// the fiber scheduler, such as Web Crypto or a database driver, can progress.
export const realPause = (ms = 1) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))

/** Polls until `check` holds, for up to about ten seconds of real time. */
export const eventually = <A, E, R>(effect: Effect.Effect<A, E, R>, check: (a: A) => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 5_000; i++) {
      const value = yield* effect
      if (check(value)) return value
      yield* realPause()
    }
    return yield* Effect.dieMessage("condition never held")
  })
