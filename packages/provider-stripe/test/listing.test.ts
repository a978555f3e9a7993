import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { describe, expect, it } from "@effect/vitest"
import { reconcileConformance } from "@hookgate/testing/conformance"
import type { PulledEvent } from "@hookgate/core/providers"
import { Chunk, Effect, Redacted, Schedule, Stream } from "effect"
import StripeClient from "stripe"
import { Stripe } from "../src/index.js"
import { checkoutSessionEvent, signStripeRequest, startStripeEventsServer, type StripeEventsServer } from "../src/testing.js"
import { SECRET } from "./support.js"

const server = Effect.acquireRelease(Effect.promise(() => startStripeEventsServer()), (s) => Effect.promise(() => s.close()))
const FAST = Schedule.spaced("5 millis").pipe(Schedule.intersect(Schedule.recurs(4)))

const listingOn = (s: StripeEventsServer, apiKey = s.apiKey) =>
  Stripe.makeListing({ apiKey: Redacted.make(apiKey), baseUrl: s.url, retry: FAST }).pipe(Effect.provide(FetchHttpClient.layer))

const addSession = (s: StripeEventsServer, n: number, created: number, type = "checkout.session.completed" as const, paid = true) => {
  const body = checkoutSessionEvent(`evt_${n}`, type, { id: `cs_test_${n}`, paymentStatus: paid ? "paid" : "unpaid" }, created)
  s.addEvent(JSON.parse(body))
  return body
}

const all = (s: StripeEventsServer, since: number, apiKey?: string) =>
  Effect.flatMap(listingOn(s, apiKey), (listing) => Stream.runCollect(listing.list(since)).pipe(Effect.map(Chunk.toArray)))

describe("the Stripe events stand-in speaks Stripe's protocol", () => {
  it.scopedLive("the official client's auto-pagination reads every event, newest first, filtered by types and created", () =>
    Effect.gen(function*() {
      const s = yield* server
      for (let n = 0; n < 7; n++) addSession(s, n, 1_760_000_000 + n)
      addSession(s, 99, 1_750_000_000) // older than the window
      s.addEvent({ id: "evt_other", type: "customer.created", created: 1_760_000_005 })
      const client = new StripeClient(s.apiKey, { host: "127.0.0.1", port: s.port, protocol: "http", maxNetworkRetries: 0 })
      const ids = yield* Effect.promise(async () => {
        const seen: Array<string> = []
        for await (const event of client.events.list({
          types: ["checkout.session.completed", "checkout.session.async_payment_succeeded"],
          created: { gte: 1_755_000_000 },
          limit: 3
        })) seen.push(event.id)
        return seen
      })
      expect(ids).toEqual(["evt_6", "evt_5", "evt_4", "evt_3", "evt_2", "evt_1", "evt_0"])
      // Three pages of three: the client followed has_more with starting_after.
      expect(s.requests.map((r) => r.query.get("starting_after"))).toEqual([null, "evt_4", "evt_1"])
      const wrong = new StripeClient("sk_test_wrong_key_000000000", { host: "127.0.0.1", port: s.port, protocol: "http", maxNetworkRetries: 0 })
      const refused = yield* Effect.promise(() => wrong.events.list().then(() => undefined, (e: unknown) => e))
      expect(refused).toBeInstanceOf(StripeClient.errors.StripeAuthenticationError)
      expect((refused as { requestId?: string }).requestId).toMatch(/^req_/)
    }))
})

describe("Stripe.makeListing", () => {
  it.scopedLive("reads every page of the paying types since a time, 100 at a time, each event whole", () =>
    Effect.gen(function*() {
      const s = yield* server
      for (let n = 0; n < 250; n++) addSession(s, n, 1_760_000_000 + n)
      addSession(s, 1000, 1_760_000_300, "checkout.session.async_payment_succeeded" as never)
      s.addEvent({ id: "evt_expired", type: "checkout.session.expired", created: 1_760_000_100 })
      const pulled = yield* all(s, 1_760_000_050 * 1000)
      expect(pulled).toHaveLength(201)
      expect(pulled[0]?.event.id).toBe("evt_1000")
      expect(pulled[0]?.created).toBe(1_760_000_300 * 1000)
      expect(pulled.at(-1)?.event.id).toBe("evt_50")
      expect((pulled[1]?.event.payload as { data: { object: { id: string } } }).data.object.id).toBe("cs_test_249")
      expect(s.requests).toHaveLength(3)
      const first = s.requests[0]!.query
      expect(first.getAll("types[]")).toEqual(["checkout.session.completed", "checkout.session.async_payment_succeeded"])
      expect(first.get("created[gte]")).toBe("1760000050")
      expect(first.get("limit")).toBe("100")
      expect(s.requests[1]!.query.get("starting_after")).toBe("evt_151") // the page: evt_1000, then evt_249 … evt_151
    }))

  it.scopedLive("429 and 5xx are retried on the schedule; a page that does not decode is an error with Stripe's request id", () =>
    Effect.gen(function*() {
      const s = yield* server
      addSession(s, 1, 1_760_000_000)
      s.failNext(1, { status: 429 })
      s.failNext(2, { status: 503 })
      const pulled: ReadonlyArray<PulledEvent> = yield* all(s, 0)
      expect(pulled.map((p) => p.event.id)).toEqual(["evt_1"])
      expect(s.requests.map((r) => r.status)).toEqual([429, 503, 503, 200])
      s.failNext(1, { malformed: true })
      const malformed = yield* Effect.flip(all(s, 0))
      expect(malformed).toMatchObject({ _tag: "ReconcileError", reason: "malformed", requestId: s.requests.at(-1)!.requestId })
      s.failNext(10, { status: 500 })
      const down = yield* Effect.flip(all(s, 0))
      expect(down).toMatchObject({ reason: "unavailable" })
    }))

  it.scopedLive("a wrong key is an auth error naming the setting, never the key", () =>
    Effect.gen(function*() {
      const s = yield* server
      const key = "sk_test_this_key_is_revoked_51234"
      const refused = yield* Effect.flip(all(s, 0, key))
      expect(refused).toMatchObject({ reason: "auth", setting: "STRIPE_API_KEY" })
      expect(refused.message).toContain("STRIPE_API_KEY")
      expect(JSON.stringify(refused) + refused.message).not.toContain(key)
      expect(s.requests).toHaveLength(1) // not retried
    }))
})

reconcileConformance({
  name: "stripe",
  world: Effect.gen(function*() {
    const s = yield* server
    const listing = yield* listingOn(s)
    const provider = yield* Stripe.make({ secrets: [Redacted.make(SECRET)], reconcile: listing })
    let n = 0
    return {
      provider,
      publish: ({ email, id, paid }) =>
        Effect.gen(function*() {
          const created = Math.floor(Date.now() / 1000) + n++
          const body = checkoutSessionEvent(`evt_${id}`, "checkout.session.completed", {
            id,
            email,
            paymentStatus: paid ? "paid" : "unpaid"
          }, created)
          s.addEvent(JSON.parse(body))
          return yield* signStripeRequest(SECRET, body)
        })
    }
  })
})

it.effect("without an API key the provider says it cannot reconcile", () =>
  Effect.map(Stripe.make({ secrets: [Redacted.make(SECRET)] }), (provider) =>
    expect(provider.reconcile).toMatchObject({ _tag: "CannotReconcile" })))
