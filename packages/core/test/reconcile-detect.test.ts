import { describe, expect, it } from "@effect/vitest"
import { OrderStore, receive, reconcile, ReconcileCursors } from "@hookgate/core"
import { AlertStore } from "@hookgate/core/alerts"
import { type ListedPayment, reconcileDetectOnly } from "@hookgate/core/providers"
import {
  MemoryStore,
  paidEvent,
  ScriptedMailer,
  signTestRequest,
  TEST_SECRET,
  TestPipeline,
  TestProvider
} from "@hookgate/testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"

/** A detect-only provider over payments kept in memory; `emailOf` answers from a map. */
const detectOnly = (payments: Array<ListedPayment>, emails: Record<string, string> = {}) =>
  reconcileDetectOnly({
    label: "Shop",
    reason: "their checkout metadata is not available",
    list: (since) => Stream.suspend(() => Stream.fromIterable(payments.filter((p) => p.created >= since))),
    emailOf: (p) => Effect.succeed(Option.fromNullable(p.customer === undefined ? undefined : emails[p.customer]))
  })

const payment = (n: number, created: number, paid = true): ListedPayment => ({
  orderKey: `test:ord_${n}`,
  id: `tran_${n}`,
  created,
  paid,
  amount: 1900,
  currency: "EUR",
  customer: `cust_${n}`
})

const pipeline = (payments: Array<ListedPayment>, emails?: Record<string, string>) =>
  Layer.merge(
    TestPipeline.layer({ store: MemoryStore.layer, providers: [TestProvider.make({ secret: TEST_SECRET, reconcile: detectOnly(payments, emails) })] }),
    ReconcileCursors.layerMemory()
  )

const unsendableAlerts = Effect.flatMap(AlertStore, (s) => s.list({ limit: 50 })).pipe(
  Effect.map((alerts) => alerts.filter((a) => a.kind === "orders_unsendable"))
)

describe("reconcile: a detect-only provider", () => {
  it.live("known orders are skipped, unpaid ones too; the unknown paid ones are named in one alert, and nothing is stored or sent", () =>
    Effect.gen(function*() {
      const now = Date.now()
      const payments = [payment(1, now - 5000), payment(2, now - 4000), payment(3, now - 3000), payment(4, now - 2000, false)]
      return yield* Effect.gen(function*() {
        // Order 1 came by webhook.
        const body = paidEvent("evt_1", { orderId: "ord_1", email: "b1@example.com", amount: 1900, currency: "eur" })
        yield* receive("test", yield* signTestRequest(TEST_SECRET, body))
        const report = yield* reconcile()
        expect(report.providers[0]).toMatchObject({ seen: 4, known: 1, new: 0, unpaid: 1, unsendable: 2, alerted: 2, error: null })
        const alerts = yield* unsendableAlerts
        expect(alerts).toHaveLength(1)
        expect(alerts[0]!.message).toBe(
          "2 paid Shop orders never reached hookgate by webhook and cannot be sent from the API (their checkout metadata is not available): " +
            "resend their webhooks from Shop's dashboard, or fulfil them by hand: " +
            "test:ord_2 (b2@example.com, 1900 EUR); test:ord_3 (b3@example.com, 1900 EUR)"
        )
        // Only the webhook's order is stored, and only its email went out.
        const store = yield* OrderStore
        expect(Option.isNone(yield* store.get("test:ord_2"))).toBe(true)
        expect(Option.isNone(yield* store.get("test:ord_3"))).toBe(true)
        expect((yield* Effect.flatMap(ScriptedMailer, (m) => m.delivered)).map((d) => d.email.to)).toEqual(["b1@example.com"])
      }).pipe(Effect.provide(pipeline(payments, { cust_2: "b2@example.com", cust_3: "b3@example.com" })))
    }))

  it.live("a key is named once across runs: the next run (re-reading its overlap) names only the newly paid order", () =>
    Effect.gen(function*() {
      const now = Date.now()
      const payments = [payment(1, now - 5000), payment(2, now - 4000)]
      return yield* Effect.gen(function*() {
        expect((yield* reconcile()).providers[0]).toMatchObject({ unsendable: 2, alerted: 2 })
        expect((yield* reconcile()).providers[0]).toMatchObject({ unsendable: 2, alerted: 0 })
        payments.push(payment(3, now - 1000))
        expect((yield* reconcile({ since: "1 hour" })).providers[0]).toMatchObject({ unsendable: 3, alerted: 1 })
        const alerts = yield* unsendableAlerts
        expect(alerts.map((a) => a.message.replace(/^.*by hand: /, "")).sort()).toEqual(["test:ord_1 (1900 EUR); test:ord_2 (1900 EUR)", "test:ord_3 (1900 EUR)"])
        expect(alerts.find((a) => a.message.startsWith("1 paid"))?.orderKey).toBe("test:ord_3")
        expect((yield* Effect.flatMap(ScriptedMailer, (m) => m.delivered))).toHaveLength(0)
      }).pipe(Effect.provide(pipeline(payments)))
    }))

  it.live("three runs at once name each order in one alert", () =>
    Effect.gen(function*() {
      const now = Date.now()
      const payments = Array.from({ length: 5 }, (_, i) => payment(i, now - 1000 * (i + 1)))
      return yield* Effect.gen(function*() {
        yield* Effect.all([reconcile(), reconcile(), reconcile()], { concurrency: 3 })
        expect(yield* unsendableAlerts).toHaveLength(1)
      }).pipe(Effect.provide(pipeline(payments)))
    }))

  it.live("a dry run counts what it would name, and names nothing", () =>
    Effect.gen(function*() {
      const payments = [payment(1, Date.now() - 1000)]
      return yield* Effect.gen(function*() {
        expect((yield* reconcile({ dryRun: true })).providers[0]).toMatchObject({ unsendable: 1, alerted: 1, cursor: null })
        expect(yield* unsendableAlerts).toHaveLength(0)
        expect((yield* reconcile()).providers[0]).toMatchObject({ alerted: 1 })
      }).pipe(Effect.provide(pipeline(payments)))
    }))
})
