// The app's own email template (the README's Template), tested on hookgate's
// test layers: memory store, scripted mailer, HMAC test provider.
import { describe, expect, it } from "@effect/vitest"
import { receive, RetryPolicy } from "@hookgate/core"
import { Providers } from "@hookgate/core/providers"
import {
  MemoryStore,
  paidEvent,
  RecordingAlerter,
  ScriptedMailer,
  signTestRequest,
  TEST_SECRET,
  TestProvider
} from "@hookgate/testing"
import { Effect, Layer } from "effect"
import { Template } from "../snippets/readme.js"

const TestLayers = Layer.mergeAll(
  MemoryStore.layer,
  ScriptedMailer.layer(),
  RecordingAlerter.layer(),
  RetryPolicy.layer({ inRequestBase: 0 }),
  Providers.layer(TestProvider.make({ secret: TEST_SECRET })),
  Template
)

describe("the shop's email", () => {
  it.effect("names the product and the order, to the buyer", () =>
    Effect.gen(function*() {
      const body = paidEvent("evt_t1", { orderId: "T-1", email: "ada@example.com", product: "Pro licence", amount: 4900, currency: "eur" })
      const outcome = yield* receive("test", yield* signTestRequest(TEST_SECRET, body))
      expect(outcome._tag).toBe("Sent")
      const [delivered, ...more] = yield* Effect.flatMap(ScriptedMailer, (mailer) => mailer.delivered)
      expect(more).toHaveLength(0)
      expect(delivered?.email).toMatchObject({
        from: "Shop <orders@shop.example>",
        to: "ada@example.com",
        subject: "Your licence key",
        text: "Thanks for buying Pro licence. Order test:T-1."
      })
    }).pipe(Effect.provide(TestLayers)))
})
