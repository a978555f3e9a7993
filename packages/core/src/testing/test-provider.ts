import { Effect, Option, Redacted, Schema } from "effect"
import { fromHex, hmacSha256, importHmacKey, timingSafeEqual, toHex, utf8 } from "../providers/hmac.js"
import { Fulfilment } from "../orders/fulfilment.js"
import { VerifiedEvent, WebhookRequest } from "../providers/webhook.js"
import { MalformedPayload, SignatureError } from "../providers/errors.js"
import type { WebhookProvider } from "../providers/providers.js"

/**
 * An HMAC test provider: `x-test-signature` is the hex HMAC-SHA256 of the raw
 * body. Events `{ id, type, data }`; type `order.paid` is a paying event, every
 * other type is ignored. For a user's own tests, and hookgate's.
 */
export const TEST_SIGNATURE_HEADER = "x-test-signature"

const TestEvent = Schema.Struct({ id: Schema.String, type: Schema.String, data: Schema.optional(Schema.Unknown) })
const PaidOrder = Schema.Struct({
  orderId: Schema.String,
  email: Schema.String,
  product: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  amount: Schema.Int,
  currency: Schema.String,
  metadata: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.String }), { default: () => ({}) })
})
export type TestPaidOrder = typeof PaidOrder.Encoded
const decodeEvent = Schema.decodeUnknown(Schema.parseJson(TestEvent))
const decodePaid = Schema.decodeUnknown(PaidOrder)

export const makeTestProvider = (options: { readonly secret: Redacted.Redacted<string>; readonly name?: string }) => {
  const name = options.name ?? "test"
  const key = Effect.runSync(Effect.cached(importHmacKey(Redacted.value(options.secret))))
  const fail = (reason: SignatureError["reason"], detail: string) => new SignatureError({ provider: name, reason, detail })

  const provider: WebhookProvider = {
    name,
    verify: (request) =>
      Effect.gen(function*() {
        const header = request.header(TEST_SIGNATURE_HEADER)
        if (header === undefined || header === "") return yield* fail("missing_header", `no ${TEST_SIGNATURE_HEADER} header`)
        const given = fromHex(header.trim())
        if (given === undefined || given.byteLength !== 32) {
          return yield* fail("malformed_header", `${TEST_SIGNATURE_HEADER} is not a hex SHA-256 MAC`)
        }
        const expected = yield* hmacSha256(yield* key, request.body)
        if (!timingSafeEqual(given, expected)) return yield* fail("no_matching_signature", "signature does not match")
        const event = yield* decodeEvent(request.text).pipe(
          Effect.mapError((error) => new MalformedPayload({ provider: name, detail: error.message }))
        )
        return new VerifiedEvent({ provider: name, id: event.id, type: event.type, payload: event })
      }),
    fulfilment: (event) =>
      event.type !== "order.paid"
        ? Effect.succeed(Option.none())
        : decodePaid((event.payload as typeof TestEvent.Type).data).pipe(
          Effect.map((paid) =>
            Option.some(
              new Fulfilment({
                orderKey: `${name}:${paid.orderId}`,
                email: paid.email,
                product: paid.product,
                amount: paid.amount,
                currency: paid.currency,
                metadata: paid.metadata
              })
            )
          ),
          Effect.mapError((error) => new MalformedPayload({ provider: name, detail: error.message }))
        )
  }
  return provider
}

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
