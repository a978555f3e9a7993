import { describeEachHmac } from "@hookgate/testing/conformance"
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { createHmac } from "node:crypto"
import { lemonSqueezySignature, orderEvent } from "../src/testing.js"
import { failureOf, makeProvider, OLD_SECRET, requestOf, SECRET } from "./support.js"

// Lemon Squeezy publishes no verifier to use as an oracle; its documented recipe
// (hex HMAC-SHA256 of the raw body, keyed with the signing secret) is computed here
// with node:crypto, independently of the kit's code under test.
const nodeSignature = (secret: string, body: string | Uint8Array) => createHmac("sha256", secret).update(body).digest("hex")

const body = orderEvent({ orderId: "1001" })

// CRLF, tabs, runs of blanks, non-ASCII text, a no-break space and U+2028 inside strings.
const unusual =
  "{\r\n\t\"meta\" :  {\"event_name\": \"order_created\", \"custom_data\": {\"note\": \"🧾\u00a0\u2028 \\u00e9\"}},\n" +
  " \"data\": {\"type\": \"orders\", \"id\": \"日本\", \"attributes\": {\"status\": \"paid\", \"total\": 1000,\r\n" +
  "  \"currency\": \"EUR\", \"user_email\": \"zoë@example.com\"}}}\n\n  "

describeEachHmac("lemon squeezy: signatures against node:crypto vectors", (it) => {
  it.effect("hookgate's signer matches node:crypto, byte for byte, and a published HMAC-SHA256 vector", () =>
    Effect.gen(function*() {
      expect(yield* lemonSqueezySignature(SECRET, body)).toBe(nodeSignature(SECRET, body))
      expect(yield* lemonSqueezySignature(SECRET, unusual)).toBe(nodeSignature(SECRET, unusual))
      const fox = "The quick brown fox jumps over the lazy dog"
      const published = "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8"
      expect(nodeSignature("key", fox)).toBe(published)
      expect(yield* lemonSqueezySignature("key", fox)).toBe(published)
    }))

  it.effect("a body signed by node:crypto verifies; its type is meta.event_name and its id is built from the resource", () =>
    Effect.gen(function*() {
      const provider = yield* makeProvider()
      const event = yield* provider.verify(requestOf(body, { "X-Signature": nodeSignature(SECRET, body), "X-Event-Name": "order_created" }))
      expect(event).toMatchObject({ provider: "lemonsqueezy", id: "order_created:orders:1001", type: "order_created" })
    }))

  it.effect("non-ASCII text and unusual whitespace verify as bytes; the same JSON re-serialised does not", () =>
    Effect.gen(function*() {
      const provider = yield* makeProvider()
      const signature = nodeSignature(SECRET, Buffer.from(unusual, "utf8"))
      expect((yield* provider.verify(requestOf(unusual, { "x-signature": signature }))).id).toBe("order_created:orders:日本")
      const error = yield* failureOf(provider.verify(requestOf(JSON.stringify(JSON.parse(unusual)), { "x-signature": signature })))
      expect(error).toMatchObject({ _tag: "SignatureError", reason: "no_matching_signature" })
    }))

  it.effect("with two secrets (a roll in progress), a body signed under either verifies, and no other", () =>
    Effect.gen(function*() {
      const provider = yield* makeProvider([SECRET, OLD_SECRET])
      for (const secret of [SECRET, OLD_SECRET]) {
        expect((yield* provider.verify(requestOf(body, { "x-signature": nodeSignature(secret, body) }))).type).toBe("order_created")
      }
      const stranger = nodeSignature("a_stranger_secret", body)
      expect(yield* failureOf(provider.verify(requestOf(body, { "x-signature": stranger })))).toMatchObject({
        reason: "no_matching_signature"
      })
    }))
})
