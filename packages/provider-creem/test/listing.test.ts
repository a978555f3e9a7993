import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { describe, expect, it } from "@effect/vitest"
import type { ListedPayment } from "@hookgate/core/providers"
import { Chunk, Effect, Option, Redacted, Schedule, Stream } from "effect"
import { Creem } from "../src/index.js"
import { type CreemTransactionsServer, startCreemTransactionsServer } from "../src/testing.js"

const server = Effect.acquireRelease(Effect.promise(() => startCreemTransactionsServer()), (s) => Effect.promise(() => s.close()))
// No waiting between tries: the test shows that a 429 is retried, not how long it waits.
const FAST = Schedule.recurs(4)

const listingOn = (s: CreemTransactionsServer, apiKey = s.apiKey) =>
  Creem.makeListing({ apiKey: Redacted.make(apiKey), baseUrl: s.url, retry: FAST }).pipe(Effect.provide(FetchHttpClient.layer))

const all = (s: CreemTransactionsServer, since: number, apiKey?: string) =>
  Effect.flatMap(listingOn(s, apiKey), (listing) => Stream.runCollect(listing.list(since)).pipe(Effect.map(Chunk.toArray)))

const add = (s: CreemTransactionsServer, n: number, created: number, status = "paid") =>
  s.addTransaction({
    id: `tran_${n}`,
    status,
    order: `ord_${n}`,
    customer: `cust_${n}`,
    amount: 1900 + n,
    currency: "EUR",
    created_at: created
  }, `buyer${n}@example.com`)

const searches = (s: CreemTransactionsServer) => s.requests.filter((r) => r.path === "/v1/transactions/search")

describe("Creem's transactions search, through the stand-in", () => {
  it.scopedLive("reads every page (100 a page, x-api-key), each paid transaction keyed as its webhook keys the order", () =>
    Effect.gen(function*() {
      const s = yield* server
      for (let n = 0; n < 230; n++) add(s, n, 1_760_000_000_000 + n * 1000, n % 10 === 0 ? "pending" : "paid")
      const listed = yield* all(s, 0)
      expect(listed).toHaveLength(230)
      expect(searches(s).map((r) => [r.query.get("page_number"), r.query.get("page_size"), r.apiKey])).toEqual([
        ["1", "100", s.apiKey],
        ["2", "100", s.apiKey],
        ["3", "100", s.apiKey]
      ])
      const first = listed.find((p) => p.id === "tran_3")
      expect(first).toEqual({
        orderKey: "creem:ord_3",
        id: "tran_3",
        created: 1_760_000_003_000,
        paid: true,
        amount: 1903,
        currency: "EUR",
        customer: "cust_3"
      } satisfies ListedPayment)
      expect(listed.filter((p) => !p.paid).map((p) => p.id)).toHaveLength(23)
    }))

  it.scopedLive("a window: older transactions are left out, and pages wholly before it are not read", () =>
    Effect.gen(function*() {
      const s = yield* server
      for (let n = 0; n < 350; n++) add(s, n, 1_000_000 + n * 1000)
      const listed = yield* all(s, 1_000_000 + 200 * 1000)
      expect(listed.map((p) => p.id).sort()).toEqual(Array.from({ length: 150 }, (_, i) => `tran_${200 + i}`).sort())
      // Newest first: page 1 (349…250), page 2 (249…150) reaches past the window, page 3 is not read.
      expect(searches(s).map((r) => r.query.get("page_number"))).toEqual(["1", "2"])
    }))

  it.scopedLive("the buyer's email of an order: GET /v1/customers?customer_id=", () =>
    Effect.gen(function*() {
      const s = yield* server
      add(s, 7, 5_000)
      const listing = yield* listingOn(s)
      const [payment] = yield* all(s, 0)
      expect(yield* listing.emailOf(payment!)).toEqual(Option.some("buyer7@example.com"))
      expect(s.requests.at(-1)).toMatchObject({ path: "/v1/customers", apiKey: s.apiKey })
      expect(s.requests.at(-1)?.query.get("customer_id")).toBe("cust_7")
    }))

  it.scopedLive("a wrong key (403) or none (401) fails the listing naming CREEM_API_KEY, never the key", () =>
    Effect.gen(function*() {
      const s = yield* server
      add(s, 1, 5_000)
      for (const key of ["creem_test_wrong_key_9f8e7d6c5b4a", ""]) {
        const error = yield* Effect.flip(all(s, 0, key))
        expect(error).toMatchObject({ _tag: "ReconcileError", provider: "creem", reason: "auth", setting: "CREEM_API_KEY" })
        expect(error.message).toContain("CREEM_API_KEY")
        expect(error.requestId).toMatch(/^[0-9a-f-]{36}$/) // the error body's trace_id
        if (key !== "") expect(JSON.stringify(error) + error.message).not.toContain(key)
      }
      expect(s.requests.map((r) => r.status)).toEqual([403, 401])
    }))

  it.scopedLive("429 and 5xx are retried on the schedule; a page that does not decode is a malformed error with its trace id", () =>
    Effect.gen(function*() {
      const s = yield* server
      for (let n = 0; n < 3; n++) add(s, n, 5_000 + n)
      s.failNext(2, { status: 429 })
      s.failNext(1, { status: 503 })
      expect(yield* all(s, 0)).toHaveLength(3)
      expect(searches(s).map((r) => r.status)).toEqual([429, 429, 503, 200])
      s.failNext(5, { status: 500 })
      const gaveUp = yield* Effect.flip(all(s, 0))
      expect(gaveUp).toMatchObject({ reason: "unavailable", detail: "Creem answered 500, after retries" })
      s.failNext(1, { malformed: true })
      const malformed = yield* Effect.flip(all(s, 0))
      expect(malformed).toMatchObject({ reason: "malformed", detail: "page 1 of /v1/transactions/search does not decode" })
      expect(malformed.requestId).toMatch(/^[0-9a-f-]{36}$/)
    }))

  it("a test-mode key speaks to Creem's test API unless CREEM_API_BASE says otherwise", () => {
    expect(Creem.defaultBase(Redacted.make("creem_test_abc"))).toBe("https://test-api.creem.io")
    expect(Creem.defaultBase(Redacted.make("creem_abc"))).toBe("https://api.creem.io")
  })
})
