import { receive, RetryPolicy } from "@hookgate/core"
import { fulfilOn, Providers } from "@hookgate/core/providers"
import { RecordingAlerter, ScriptedMailer, TestRenderer } from "@hookgate/testing"
import { SqliteStore } from "@hookgate/store-sqlite"
import { describeEachHmac } from "@hookgate/testing/conformance"
import { expect } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Schema } from "effect"
import { StandardWebhooks } from "../src/index.js"
import { signStandardRequest } from "../src/testing.js"
import { atNow, RAW_SECRET } from "./support.js"

// The README's Polar example, verbatim, so the documentation cannot drift from the API.
const OrderPaid = Schema.Struct({
  data: Schema.Struct({
    id: Schema.String,
    status: Schema.String,
    total_amount: Schema.Int,
    currency: Schema.String,
    product_id: Schema.NullOr(Schema.String),
    customer: Schema.Struct({ email: Schema.String })
  })
})

const PolarLive = Providers.layer(StandardWebhooks.layerConfig({
  name: "polar",
  secrets: "POLAR_WEBHOOK_SECRET",
  secretFormat: "raw",
  fulfilment: fulfilOn({
    types: ["order.paid"],
    schema: OrderPaid,
    fulfilment: ({ data }) =>
      data.status !== "paid" ? null : {
        orderId: data.id,
        email: data.customer.email,
        product: data.product_id,
        amount: data.total_amount,
        currency: data.currency
      }
  })
}))

const env = Layer.mergeAll(
  PolarLive,
  SqliteStore.layer({ filename: ":memory:" }),
  ScriptedMailer.layer(),
  RecordingAlerter.layer(),
  TestRenderer.layer,
  RetryPolicy.layer({ inRequestBase: 0 })
).pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromJson({ POLAR_WEBHOOK_SECRET: RAW_SECRET }))))

const event = (status: string) =>
  JSON.stringify({
    type: "order.paid",
    data: { id: "ord_readme", status, total_amount: 900, currency: "usd", product_id: null, customer: { email: "a@example.com" } }
  })

describeEachHmac("standard webhooks: the README example", (it) => {
  it.effect("mounts Polar from config and sends one email for a paid order", () =>
    Effect.gen(function*() {
      yield* atNow
      const sign = (body: string) => signStandardRequest(RAW_SECRET, body, { secretFormat: "raw" })
      expect((yield* receive("polar", yield* sign(event("pending"))))._tag).toBe("Ignored")
      expect(yield* receive("polar", yield* sign(event("paid")))).toMatchObject({ _tag: "Sent", orderKey: "polar:ord_readme" })
      expect(yield* Effect.flatMap(ScriptedMailer, (m) => m.calls)).toHaveLength(1)
    }).pipe(Effect.provide(env)))
})
