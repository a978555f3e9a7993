import { OrderStore, receive } from "@hookgate/core"
import type { StoredFulfilment, WebhookProvider } from "@hookgate/core/providers"
import { failureOf, MemoryStore, paidEvent, signTestRequest, TestPipeline, TestProvider } from "@hookgate/testing"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"

// A provider whose fulfilment is expensive (it would fetch the email from an API):
// with `orderKeyOf`, `receive` hands it the order already stored under the event's key.
const SECRET = Redacted.make("whsec_stored_fulfilment")
const order = { orderId: "ord_1", email: "ada@example.com", amount: 1900, currency: "usd" }

const expensive = (options: { readonly declareKey: boolean }) => {
  const contexts: Array<StoredFulfilment | undefined> = []
  let fetches = 0
  const provider = Effect.map(TestProvider.make({ secret: SECRET }), (base): WebhookProvider => {
    const fulfilment: WebhookProvider["fulfilment"] = (event, context) => {
      contexts.push(context)
      const stored = context?.stored ?? Option.none()
      if (Option.isNone(stored)) fetches++
      return base.fulfilment(event)
    }
    const orderKeyOf = (event: { readonly type: string; readonly payload: unknown }) =>
      event.type === "order.paid" ? `test:${(event.payload as { data: { orderId: string } }).data.orderId}` : undefined
    return options.declareKey ? { ...base, fulfilment, orderKeyOf } : { ...base, fulfilment }
  })
  return { provider, contexts, fetches: () => fetches }
}

const env = (provider: Effect.Effect<WebhookProvider>) =>
  TestPipeline.layer({ store: MemoryStore.layer, providers: [provider], mailer: { honoursIdempotencyKeys: false } })
const deliver = (body: string) => Effect.flatMap(signTestRequest(SECRET, body), (request) => receive("test", request))
const storedOrder = Effect.flatMap(OrderStore, (store) => Effect.flatMap(store.get("test:ord_1"), Effect.orDie))

describe("receive: a provider's expensive fulfilment and the stored order", () => {
  const withKey = expensive({ declareKey: true })
  it.effect("the first delivery finds nothing stored; its replays are handed the stored fulfilment, and fetch nothing", () =>
    Effect.gen(function*() {
      expect((yield* deliver(paidEvent("evt_1", order)))._tag).toBe("Sent")
      expect(withKey.contexts).toEqual([{ stored: Option.none() }])
      expect((yield* deliver(paidEvent("evt_1", order)))._tag).toBe("Duplicate")
      expect((yield* deliver(paidEvent("evt_2", order)))._tag).toBe("Duplicate")
      expect(withKey.fetches()).toBe(1)
      const stored = (yield* storedOrder).fulfilment
      expect(withKey.contexts.slice(1)).toEqual([{ stored: Option.some(stored) }, { stored: Option.some(stored) }])
      // Conflicts are still the store's to find: the provider still maps the event it was given.
      const conflict = yield* failureOf(deliver(paidEvent("evt_3", { ...order, amount: 100 })))
      expect(conflict).toMatchObject({ _tag: "OrderConflict", orderKey: "test:ord_1" })
      // An event that names no order key (an ignored type) is decoded without a lookup.
      expect((yield* deliver(JSON.stringify({ id: "evt_4", type: "order.refunded", data: {} })))._tag).toBe("Ignored")
      expect(withKey.contexts.at(-1)).toBeUndefined()
    }).pipe(Effect.provide(env(withKey.provider))))

  const withoutKey = expensive({ declareKey: false })
  it.effect("a provider without orderKeyOf is never given a context: every delivery decodes as before", () =>
    Effect.gen(function*() {
      expect((yield* deliver(paidEvent("evt_1", order)))._tag).toBe("Sent")
      expect((yield* deliver(paidEvent("evt_1", order)))._tag).toBe("Duplicate")
      expect(withoutKey.contexts).toEqual([undefined, undefined])
      expect(withoutKey.fetches()).toBe(2)
    }).pipe(Effect.provide(env(withoutKey.provider))))
})
