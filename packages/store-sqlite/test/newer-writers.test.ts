import * as SqlClient from "@effect/sql/SqlClient"
import { it } from "@effect/vitest"
import { OrderStore, receive, sweep } from "@hookgate/core"
import { AlertStore } from "@hookgate/core/alerts"
import {
  failureOf,
  paidEvent,
  ScriptedMailer,
  signTestRequest,
  TEST_SECRET,
  TestPipeline,
  TestProvider
} from "@hookgate/testing"
import { SqliteStore } from "@hookgate/store-sqlite"
import { Effect, Layer, Option } from "effect"
import { expect } from "vitest"

// Rows as a newer release might write them (then was rolled back): values of its enums this
// release does not know. Reading them is not a failure: they are shown as "unknown", and
// nothing this release does touches such an order.
const T0 = 1_700_000_000_000

const writeNewerRows = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`INSERT INTO hookgate_orders (order_key, provider, event_id, event_type, email, product, amount, currency,
  metadata, payload_hash, status, attempts, next_attempt_at, uncertain, duplicates_prevented, possible_duplicates,
  leases_lost, created_at, updated_at)
VALUES ('test:refunded', 'test', 'evt_refunded', 'checkout.session.completed', 'refunded@example.com', 'course-101', 1900,
  'usd', '{}', 'h', 'refunded_by_a_newer_release', 0, ${T0}, 0, 0, 0, 0, ${T0}, ${T0})`
  yield* sql`INSERT INTO hookgate_receipts (provider, event_id, event_type, order_key, outcome, received_at, last_seen_at, deliveries)
VALUES ('test', 'evt_later', 'charge.refunded', 'test:refunded', 'refund_recorded', ${T0 + 1}, ${T0 + 1}, 1)`
  yield* sql`INSERT INTO hookgate_alerts (alert_id, kind, order_key, message, created_at, delivered_at, delivery_error, attempts)
VALUES ('newer-kind', 'chargeback_opened', 'test:refunded', 'a newer alert', ${T0 + 2}, ${T0 + 3}, NULL, 1)`
})

// One store (a layer is built once per reference) behind the pipeline and for raw SQL.
const layer = () => {
  const store = SqliteStore.layer({ filename: ":memory:" })
  return Layer.merge(TestPipeline.layer({ store, providers: [TestProvider.make({ secret: TEST_SECRET })] }), store)
}

it.effect("an order status, receipt outcome and alert kind this release does not know read as unknown, and are counted and listed", () =>
  Effect.gen(function*() {
    yield* writeNewerRows
    const store = yield* OrderStore
    const order = Option.getOrThrow(yield* store.get("test:refunded"))
    expect(order.status).toBe("unknown")
    expect((yield* store.list({ limit: 10 })).map((o) => [o.key, o.status])).toEqual([["test:refunded", "unknown"]])
    expect((yield* store.list({ limit: 10, status: "unknown" })).map((o) => o.key)).toEqual(["test:refunded"])
    expect(yield* store.list({ limit: 10, status: "pending" })).toEqual([])
    expect((yield* store.receipts({ orderKey: "test:refunded", limit: 10 })).map((r) => r.outcome)).toEqual(["unknown"])
    expect((yield* store.stats).orders).toEqual({ pending: 0, sent: 0, failed: 0, capped: 0, unknown: 1 })
    const alerts = yield* Effect.flatMap(AlertStore, (s) => s.list({ limit: 10 }))
    expect(alerts.map((a) => [a.id, a.kind])).toEqual([["newer-kind", "unknown"]])
  }).pipe(Effect.provide(layer())))

it.effect("an order in a status this release does not know is neither swept nor sent; its webhook answers 503 (StoreUnavailable)", () =>
  Effect.gen(function*() {
    const request = yield* signTestRequest(
      TEST_SECRET,
      paidEvent("evt_o1", { orderId: "o1", email: "o1@example.com", product: "course-101", amount: 1900, currency: "usd" })
    )
    expect((yield* receive("test", request))._tag).toBe("Sent")
    // A newer release moved it to a status of its own.
    const sql = yield* SqlClient.SqlClient
    yield* sql`UPDATE hookgate_orders SET status = 'refunded_by_a_newer_release', next_attempt_at = 0 WHERE order_key = 'test:o1'`
    expect((yield* sweep()).scanned).toBe(0)
    const error = yield* failureOf(receive("test", request))
    expect(error._tag).toBe("StoreUnavailable")
    expect(yield* Effect.flatMap(ScriptedMailer, (m) => m.calls)).toHaveLength(1)
    const store = yield* OrderStore
    expect(Option.getOrThrow(yield* store.get("test:o1")).status).toBe("unknown")
  }).pipe(Effect.provide(layer())))
