import { describeEachHmac } from "@hookgate/testing/conformance"
import { expect } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import Stripe from "stripe"
import { checkoutSessionEvent, stripeSignatureHeader } from "../src/testing.js"
import { atNow, failureOf, makeProvider, NOW_MS, NOW_S, OLD_SECRET, requestOf, SECRET } from "./support.js"

// The official library is the oracle: what it signs we accept, and what we sign it accepts.
const stripe = new Stripe("sk_test_oracle_only")
const subtle = Stripe.createSubtleCryptoProvider()

const body = checkoutSessionEvent("evt_1", "checkout.session.completed", { id: "cs_test_1" })

// Non-ASCII text, CRLF, tabs, runs of blanks, trailing blanks between tokens, and a
// no-break space and U+2028 inside strings (JSON allows them there raw): all signed as bytes.
const unusual =
  "{\r\n\t\"id\" :  \"evt_ünï\",\t\"type\":\"checkout.session.completed\",\n" +
  "  \"data\": {\"object\": {\"id\": \"cs_日本語\", \"payment_status\": \"paid\", \"amount_total\": 1900,\r\n" +
  " \"currency\": \"eur\", \"customer_details\": {\"email\": \"zoë@example.com\"},\n" +
  " \"metadata\": {\"note\": \"🧾\u00a0\u2028 \\u00e9\"}}}}  \n\t"

const stripeAccepts = async (payload: string, header: string, secret: string) => {
  const event = await stripe.webhooks.constructEventAsync(payload, header, secret, 300, subtle, NOW_MS)
  // The sync node:crypto path must agree with the async Web Crypto one.
  expect(stripe.webhooks.constructEvent(payload, header, secret, 300, undefined, NOW_MS).id).toBe(event.id)
  return event
}

describeEachHmac("stripe: the official library as oracle", (it) => {
  it.effect("a header made by stripe.webhooks.generateTestHeaderString is accepted", () =>
    Effect.gen(function*() {
      yield* atNow
      const provider = yield* makeProvider()
      const header = stripe.webhooks.generateTestHeaderString({ payload: body, secret: SECRET, timestamp: NOW_S })
      const event = yield* provider.verify(requestOf(body, { "Stripe-Signature": header }))
      expect(event).toMatchObject({ provider: "stripe", id: "evt_1", type: "checkout.session.completed" })
    }))

  it.effect("a header made by hookgate's signer is accepted by constructEventAsync and constructEvent", () =>
    Effect.gen(function*() {
      yield* atNow
      const header = yield* stripeSignatureHeader(Redacted.make(SECRET), body)
      expect(header).toMatch(new RegExp(`^t=${NOW_S},v1=[0-9a-f]{64}$`))
      const event = yield* Effect.promise(() => stripeAccepts(body, header, SECRET))
      expect(event.id).toBe("evt_1")
      // The oracle is not vacuous: it refuses our header over another body or under another secret.
      yield* Effect.promise(() =>
        expect(stripe.webhooks.constructEventAsync(body + " ", header, SECRET, 300, subtle, NOW_MS)).rejects.toThrow()
      )
      yield* Effect.promise(() =>
        expect(stripe.webhooks.constructEventAsync(body, header, OLD_SECRET, 300, subtle, NOW_MS)).rejects.toThrow()
      )
    }))

  it.effect("a body with non-ASCII text and unusual whitespace verifies both ways, as bytes", () =>
    Effect.gen(function*() {
      yield* atNow
      const provider = yield* makeProvider()
      const theirs = stripe.webhooks.generateTestHeaderString({ payload: unusual, secret: SECRET, timestamp: NOW_S })
      const event = yield* provider.verify(requestOf(unusual, { "stripe-signature": theirs }))
      expect(event.id).toBe("evt_ünï")
      const ours = yield* stripeSignatureHeader(SECRET, unusual)
      expect(ours).toBe(theirs)
      yield* Effect.promise(() => stripeAccepts(unusual, ours, SECRET))
      // The same JSON re-serialised is other bytes, and is refused.
      const reserialised = JSON.stringify(JSON.parse(unusual))
      const error = yield* failureOf(provider.verify(requestOf(reserialised, { "stripe-signature": theirs })))
      expect(error).toMatchObject({ _tag: "SignatureError", reason: "no_matching_signature" })
    }))

  it.effect("during a roll, a header with a v1 per secret is accepted by either secret, here and by the oracle", () =>
    Effect.gen(function*() {
      yield* atNow
      const header = yield* stripeSignatureHeader(SECRET, body, { alsoSignWith: [OLD_SECRET] })
      expect(header.match(/v1=/g)).toHaveLength(2)
      for (const secret of [SECRET, OLD_SECRET]) {
        const provider = yield* makeProvider([secret])
        expect((yield* provider.verify(requestOf(body, { "stripe-signature": header }))).id).toBe("evt_1")
        yield* Effect.promise(() => stripeAccepts(body, header, secret))
      }
    }))

  it.effect("a provider holding two secrets accepts a header signed under either one, and no other", () =>
    Effect.gen(function*() {
      yield* atNow
      const provider = yield* makeProvider([SECRET, OLD_SECRET])
      for (const secret of [SECRET, OLD_SECRET]) {
        const header = stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: NOW_S })
        expect((yield* provider.verify(requestOf(body, { "stripe-signature": header }))).id).toBe("evt_1")
      }
      const stranger = stripe.webhooks.generateTestHeaderString({ payload: body, secret: "whsec_stranger", timestamp: NOW_S })
      const error = yield* failureOf(provider.verify(requestOf(body, { "stripe-signature": stranger })))
      expect(error).toMatchObject({ reason: "no_matching_signature" })
    }))

  it.effect("a valid v0 signature counts for nothing; only v1 does", () =>
    Effect.gen(function*() {
      yield* atNow
      const provider = yield* makeProvider()
      const valid = stripe.webhooks.generateTestHeaderString({ payload: body, secret: SECRET, timestamp: NOW_S })
      const v0Only = valid.replace("v1=", "v0=")
      expect(yield* failureOf(provider.verify(requestOf(body, { "stripe-signature": v0Only })))).toMatchObject({
        reason: "malformed_header",
        detail: "no v1 signature"
      })
      const wrongV1 = `${v0Only},v1=${"0".repeat(64)}`
      expect(yield* failureOf(provider.verify(requestOf(body, { "stripe-signature": wrongV1 })))).toMatchObject({
        reason: "no_matching_signature"
      })
      // And a v0 decoy beside the real v1 does not get in the way.
      const withDecoy = `${valid},v0=${"ab".repeat(32)}`
      expect((yield* provider.verify(requestOf(body, { "stripe-signature": withDecoy }))).id).toBe("evt_1")
    }))
})
