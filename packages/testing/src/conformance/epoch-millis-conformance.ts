import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { EpochMillis, Lease, leaseTerms, leaseTermsFrom, OrderStore, receive, sweep } from "@hookgate/core"
import { AlertStore } from "@hookgate/core/alerts"
import { CampaignStore, createCampaign } from "@hookgate/core/campaigns"
import { Consumer, DeadLetter, DeadLetterStore, MessageLedger } from "@hookgate/core/queue"
import { newOrder, realPause, TEST_SECRET } from "../fixtures.js"
import * as MailerSteps from "../MailerSteps.js"
import { paidEvent, signTestRequest } from "../test-provider.js"
import * as TestPipeline from "../TestPipeline.js"
import * as TestProvider from "../TestProvider.js"
import { recipients, TEMPLATE } from "./campaign-store-conformance.js"
import type { LedgerServices } from "./ledger-services.js"

type Services = OrderStore | Lease | AlertStore | LedgerServices
type Pipeline = Layer.Layer.Success<ReturnType<typeof TestPipeline.layer>>

/** Half a millisecond past a whole one: what a `TestClock` moved by a fraction, or a jittered delay, gives. */
const FRACTIONAL = 1_700_000_000_000.5
const WHOLE = Math.floor(FRACTIONAL)

const isWhole = (value: unknown) => value === null || (typeof value === "number" && Number.isInteger(value))
/** Every number among `values` (a record's fields) is whole. */
const expectWhole = (label: string, values: Record<string, unknown>) => {
  for (const [field, value] of Object.entries(values)) {
    if (typeof value === "number") expect(Number.isInteger(value), `${label}.${field} = ${value}`).toBe(true)
  }
}

/**
 * Every time a store keeps is a whole epoch millisecond, whatever the clock says:
 * the pipeline, the queue ledger and the campaign ledger run on a `TestClock` at a
 * fractional time and with jittered delays, and what each port reads back is whole.
 * `stored`, when given, reads every stored time as the database answers it (raw SQL),
 * on the same store: each must be a whole number too.
 */
export const epochMillisConformance = <R = never>(
  name: string,
  makeLayer: () => Layer.Layer<Services | R, unknown>,
  stored?: Effect.Effect<ReadonlyArray<unknown>, unknown, R>
) =>
  describe(`whole epoch milliseconds: ${name}`, () => {
    const test = <E>(title: string, body: Effect.Effect<void, E, Services | Pipeline | R>) =>
      it.effect(title, () => {
        const store = makeLayer()
        const pipeline = TestPipeline.layer({
          store,
          providers: [TestProvider.make({ secret: TEST_SECRET })],
          mailer: { otherwise: MailerSteps.transient() },
          alerterFails: true,
          policy: { inRequestBase: "100 millis", maxAttempts: 2 }
        })
        return Effect.gen(function*() {
          yield* TestClock.setTime(FRACTIONAL)
          yield* body
          if (stored === undefined) return
          const values = yield* stored
          expect(values.length).toBeGreaterThan(0)
          expect(values.filter((value) => !isWhole(value))).toEqual([])
        }).pipe(Effect.provide(Layer.merge(pipeline, store)))
      })

    // Runs `effect` while moving the clock a second at a time (and letting real I/O progress) until it ends.
    const advancing = <A, E, R2>(effect: Effect.Effect<A, E, R2>) =>
      Effect.gen(function*() {
        const fiber = yield* Effect.fork(effect)
        while (Option.isNone(yield* Fiber.poll(fiber))) {
          yield* TestClock.adjust("1 second")
          yield* realPause()
        }
        return yield* Fiber.join(fiber)
      })

    const webhook = (eventId: string) =>
      Effect.flatMap(
        signTestRequest(TEST_SECRET, paidEvent(eventId, { orderId: "o1", email: "o1@example.com", amount: 1900, currency: "usd" })),
        (request) => receive("test", request)
      )

    test(
      "an order whose sends fail, through jittered retries to its cap: the order, its receipt, its alert",
      Effect.gen(function*() {
        // Each send's in-request retries sleep jittered delays: the clock ends wherever they put it.
        yield* advancing(webhook("evt_o1"))
        yield* advancing(webhook("evt_o1_again"))
        const store = yield* OrderStore
        for (let i = 0; i < 5 && Option.exists(yield* store.get("test:o1"), (o) => o.status === "pending"); i++) {
          yield* TestClock.adjust("1 day")
          yield* advancing(sweep())
        }
        const order = Option.getOrThrow(yield* store.get("test:o1"))
        expect(order.status).toBe("capped")
        // Taken at FRACTIONAL plus whole seconds (`advancing`), floored.
        expect(order.createdAt % 1_000).toBe(0)
        expectWhole("order", { ...order })
        const receipts = yield* store.receipts({ orderKey: "test:o1", limit: 10 })
        expect(receipts.length).toBeGreaterThan(0)
        for (const receipt of receipts) expectWhole("receipt", { receivedAt: receipt.receivedAt })
        const alerts = yield* Effect.flatMap(AlertStore, (s) => s.list({ limit: 10 }))
        expect(alerts.map((a) => a.kind)).toEqual(["capped"])
        expect(alerts[0]!.nextAttemptAt).not.toBeNull()
        expectWhole("alert", { ...alerts[0]! })
      })
    )

    test(
      "leases taken at a fractional time for a fractional length end on a whole millisecond: an order's, a message's",
      Effect.gen(function*() {
        const length = Duration.millis(60_000.25)
        const terms = yield* leaseTerms(length)
        // The time floored, the length rounded up: a lease never ends before its length.
        expect(terms).toMatchObject({ now: WHOLE, until: WHOLE + 60_001 })
        const put = yield* Effect.flatMap(OrderStore, (s) => Effect.flatMap(newOrder("leased"), (o) => s.put(o, terms)))
        expect(put._tag).toBe("Stored")
        const order = Option.getOrThrow(yield* Effect.flatMap(OrderStore, (s) => s.get("test:leased")))
        expect(order.leaseExpiresAt).toBe(WHOLE + 60_001)
        expectWhole("order", { ...order })
        const ledger = yield* MessageLedger
        expect((yield* ledger.acquire("m-leased", yield* leaseTerms(length)))._tag).toBe("Leased")
        expect(yield* ledger.acquire("m-leased", yield* leaseTerms(length))).toEqual({ _tag: "InProgress", until: WHOLE + 60_001 })
      })
    )

    test(
      "the queue and campaign ledgers at a fractional time: a message, a dead letter, a campaign and its batch",
      Effect.gen(function*() {
        const ledger = yield* MessageLedger
        yield* Consumer.once("m-done", Effect.void)
        yield* Effect.exit(Consumer.once("m-failed", Effect.fail("no")))
        for (const key of ["m-done", "m-failed"]) expectWhole(key, { ...Option.getOrThrow(yield* ledger.get(key)) })
        expect(Option.getOrThrow(yield* ledger.get("m-done")).completedAt).toBe(WHOLE)

        const letters = yield* DeadLetterStore
        yield* letters.put(new DeadLetter({ queue: "q", messageId: "x", body: "{}", attempts: 3, receivedAt: yield* EpochMillis.now }))
        expect((yield* letters.list({ limit: 10 })).map((l) => l.receivedAt)).toEqual([WHOLE])

        const campaigns = yield* CampaignStore
        yield* createCampaign({ id: "c1", template: TEMPLATE, recipients: Stream.fromIterable(recipients(3)) })
        yield* TestClock.adjust("0.75 millis")
        const now = yield* EpochMillis.now
        yield* campaigns.transition("c1", { from: ["draft"], to: "running", now })
        const campaign = Option.getOrThrow(yield* campaigns.get("c1"))
        expect(campaign).toMatchObject({ createdAt: WHOLE, updatedAt: WHOLE + 1 })
        const first = yield* leaseTermsFrom(now, Duration.millis(60_000.5))
        const reserved = yield* campaigns.reserve("c1", 1, { size: 10, ...first })
        expect(reserved._tag).toBe("Leased")
        expect(yield* campaigns.reserve("c1", 1, { size: 10, ...(yield* leaseTermsFrom(now, Duration.millis(60_000.5))) })).toEqual({
          _tag: "InProgress",
          until: WHOLE + 1 + 60_001
        })
        const seqs = reserved._tag === "Leased" ? reserved.members.map((m) => m.seq) : []
        expect(yield* campaigns.record("c1", 1, first.token, seqs.map((seq) => ({ seq, outcome: "sent" as const, messageId: `m${seq}` })), now)).toBe(3)
      })
    )
  })
