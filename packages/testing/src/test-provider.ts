import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { fulfilOn, hmacSha256, importHmacKey, toHex, utf8, WebhookRequest } from "@hookgate/core/providers"

/**
 * An HMAC test provider: `x-test-signature` is the hex HMAC-SHA256 of the raw
 * body. Events `{ id, type, data }`; type `order.paid` is a paying event, every
 * other type is ignored. For a user's own tests, and hookgate's.
 */
export const TEST_SIGNATURE_HEADER = "x-test-signature"

export const TestEvent = Schema.Struct({ id: Schema.String, type: Schema.String })
const PaidOrder = Schema.Struct({
  orderId: Schema.String,
  email: Schema.String,
  product: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  amount: Schema.Int,
  currency: Schema.String,
  metadata: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.String }), { default: () => ({}) })
})
/** The `data` of a paying test event. */
export type TestPaidOrder = typeof PaidOrder.Encoded

export const testFulfilment = fulfilOn({
  types: ["order.paid"],
  schema: Schema.Struct({ data: PaidOrder }),
  fulfilment: ({ data }) => data,
  objectIdAt: ["data", "orderId"]
})

/** Signs a body as the test provider expects and builds the request. */
export const signTestRequest = (secret: Redacted.Redacted<string>, body: string | Uint8Array) =>
  Effect.gen(function*() {
    const bytes = typeof body === "string" ? utf8(body) : body
    const mac = yield* hmacSha256(yield* importHmacKey(Redacted.value(secret)), bytes)
    return WebhookRequest.fromParts(bytes, { "content-type": "application/json", [TEST_SIGNATURE_HEADER]: toHex(mac) })
  })

/** The body of a paying test event. */
export const paidEvent = (eventId: string, order: TestPaidOrder) =>
  JSON.stringify({ id: eventId, type: "order.paid", data: order })
