import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, FastCheck as fc, ParseResult, Schema } from "effect"
import { decodeSyncFirst } from "../src/internal/decode-sync-first.js"
import { Fulfilment } from "../src/kernel/fulfilment.js"

// `decodeSyncFirst(schema)` answers a synchronous success at once and leaves every failure
// to `Schema.decodeUnknown(schema)`: both must give the same value or the same error,
// for synchronous schemas and for one that decodes asynchronously.
const outcome = async <A, R>(effect: Effect.Effect<A, ParseResult.ParseError, R>) => {
  const result = await Effect.runPromise(Effect.either(effect as Effect.Effect<A, ParseResult.ParseError>))
  return Either.match(result, {
    onLeft: (error) => ({ ok: false, error: ParseResult.TreeFormatter.formatErrorSync(error) }),
    onRight: (value) => ({ ok: true, value, isClass: value instanceof Fulfilment })
  })
}

const sameEitherWay = async <A, I>(schema: Schema.Schema<A, I>, input: unknown) => {
  const fast = await outcome(decodeSyncFirst(schema)(input))
  const general = await outcome(Schema.decodeUnknown(schema)(input))
  expect(fast).toEqual(general)
  return fast
}

// A Stripe-like session: what a provider's `fulfilOn` schema decodes.
const Session = Schema.Struct({
  data: Schema.Struct({
    object: Schema.Struct({
      id: Schema.String,
      payment_status: Schema.Literal("paid", "unpaid", "no_payment_required"),
      amount_total: Schema.Int,
      currency: Schema.String,
      customer_details: Schema.NullOr(Schema.Struct({ email: Schema.NullOr(Schema.String) })),
      metadata: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String }))
    })
  })
})

// Decodes only asynchronously: the synchronous parser cannot finish it.
const Later = Schema.transformOrFail(Schema.String, Schema.String, {
  decode: (s) => Effect.as(Effect.sleep("1 millis"), s.toUpperCase()),
  encode: ParseResult.succeed
})
const WithLater = Schema.Struct({ id: Schema.String, later: Later })

const scalar = fc.oneof(fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constant(undefined))
const email = fc.oneof(fc.constant("buyer@example.com"), fc.constant(null), fc.string())
const session = fc.record({
  id: fc.oneof(fc.constant("cs_1"), scalar),
  payment_status: fc.oneof(fc.constantFrom("paid", "unpaid", "no_payment_required"), scalar),
  amount_total: fc.oneof(fc.integer(), scalar),
  currency: fc.oneof(fc.constant("usd"), scalar),
  customer_details: fc.oneof(fc.record({ email }), fc.constant(null), scalar),
  metadata: fc.oneof(fc.dictionary(fc.string(), fc.oneof(fc.string(), scalar)), fc.constant(undefined))
}, { requiredKeys: [] })
const payload = fc.oneof(fc.record({ data: fc.record({ object: session }) }), scalar, fc.record({ data: scalar }))
const fulfilmentInput = fc.record({
  orderKey: fc.oneof(fc.constant("stripe:cs_1"), scalar),
  email: fc.oneof(fc.constant("buyer@example.com"), scalar),
  product: fc.oneof(fc.constant("course-101"), fc.constant(null), scalar),
  amount: fc.oneof(fc.integer(), scalar),
  currency: fc.oneof(fc.constant("usd"), scalar),
  metadata: fc.oneof(fc.dictionary(fc.string(), fc.string()), scalar)
}, { requiredKeys: [] })

describe("decodeSyncFirst", () => {
  it("decodes a valid session and a fulfilment as the schema does", async () => {
    const valid = {
      data: { object: { id: "cs_1", payment_status: "paid", amount_total: 1900, currency: "usd", customer_details: { email: "b@example.com" } } }
    }
    expect(await sameEitherWay(Session, valid)).toMatchObject({ ok: true })
    expect(await sameEitherWay(Fulfilment, {
      orderKey: "stripe:cs_1",
      email: "b@example.com",
      product: null,
      amount: 1900,
      currency: "usd",
      metadata: {}
    })).toMatchObject({ ok: true, isClass: true })
  })

  it("an asynchronous schema still decodes, through the general path", async () => {
    expect(await sameEitherWay(WithLater, { id: "a", later: "b" })).toEqual({ ok: true, value: { id: "a", later: "B" }, isClass: false })
    expect(await sameEitherWay(WithLater, { id: 1, later: "b" })).toMatchObject({ ok: false })
  })

  it("agrees with the general decode on any input (property)", async () => {
    await fc.assert(
      fc.asyncProperty(payload, fulfilmentInput, fc.record({ id: scalar, later: scalar }), async (p, f, l) => {
        await sameEitherWay(Session, p)
        await sameEitherWay(Fulfilment, f)
        await sameEitherWay(WithLater, l)
      }),
      { numRuns: 500, seed: 20261205 }
    )
  })
})
