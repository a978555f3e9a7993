import { describeEachHmac } from "@hookgate/testing/conformance"
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { createHmac } from "node:crypto"
import { checkoutCompletedEvent, creemSignature } from "../src/testing.js"
import { failureOf, makeProvider, OLD_SECRET, requestOf, SECRET } from "./support.js"

// Creem publishes no SDK verifier to use as an oracle; node:crypto computes the
// vectors independently of the Web Crypto code under test.
const nodeSignature = (secret: string, body: string | Uint8Array) => createHmac("sha256", secret).update(body).digest("hex")

const body = checkoutCompletedEvent("evt_v", { orderId: "ord_v" })

// CRLF, tabs, runs of blanks, non-ASCII text, a no-break space and U+2028 inside strings.
const unusual =
  "{\r\n\t\"id\":  \"evt_ünï\" ,\t\"eventType\" : \"checkout.completed\",\n" +
  " \"object\": {\"order\": {\"id\": \"ord_日本\", \"amount\": 1000, \"currency\": \"EUR\"},\r\n" +
  "  \"customer\": {\"email\": \"zoë@example.com\"}, \"metadata\": {\"note\": \"🧾\u00a0\u2028\"}}}\n\n  "

describeEachHmac("creem: signatures against node:crypto vectors", (it) => {
  it.effect("hookgate's signer matches node:crypto, byte for byte", () =>
    Effect.gen(function*() {
      expect(yield* creemSignature(SECRET, body)).toBe(nodeSignature(SECRET, body))
      expect(yield* creemSignature(SECRET, unusual)).toBe(nodeSignature(SECRET, unusual))
      // A published HMAC-SHA256 vector, so a change to both sides at once would still be caught.
      const fox = "The quick brown fox jumps over the lazy dog"
      const published = "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8"
      expect(nodeSignature("key", fox)).toBe(published)
      expect(yield* creemSignature("key", fox)).toBe(published)
    }))

  it.effect("a body signed by node:crypto verifies, and carries its event id and type", () =>
    Effect.gen(function*() {
      const provider = yield* makeProvider()
      const event = yield* provider.verify(requestOf(body, { "Creem-Signature": nodeSignature(SECRET, body) }))
      expect(event).toMatchObject({ provider: "creem", id: "evt_v", type: "checkout.completed" })
    }))

  it.effect("non-ASCII text and unusual whitespace verify as bytes; the same JSON re-serialised does not", () =>
    Effect.gen(function*() {
      const provider = yield* makeProvider()
      const signature = nodeSignature(SECRET, Buffer.from(unusual, "utf8"))
      const event = yield* provider.verify(requestOf(unusual, { "creem-signature": signature }))
      expect(event.id).toBe("evt_ünï")
      const error = yield* failureOf(
        provider.verify(requestOf(JSON.stringify(JSON.parse(unusual)), { "creem-signature": signature }))
      )
      expect(error).toMatchObject({ _tag: "SignatureError", reason: "no_matching_signature" })
    }))

  it.effect("the key is the secret string as given, whsec_ prefix included, not its decoded form", () =>
    Effect.gen(function*() {
      const provider = yield* makeProvider()
      const decodedKey = Buffer.from(SECRET.slice("whsec_".length), "base64")
      const wrongly = createHmac("sha256", decodedKey).update(body).digest("hex")
      expect(yield* failureOf(provider.verify(requestOf(body, { "creem-signature": wrongly })))).toMatchObject({
        reason: "no_matching_signature"
      })
    }))

  it.effect("with two secrets (a roll in progress), a body signed under either verifies", () =>
    Effect.gen(function*() {
      const provider = yield* makeProvider([SECRET, OLD_SECRET])
      for (const secret of [SECRET, OLD_SECRET]) {
        expect((yield* provider.verify(requestOf(body, { "creem-signature": nodeSignature(secret, body) }))).id).toBe("evt_v")
      }
      const stranger = nodeSignature("whsec_stranger", body)
      expect(yield* failureOf(provider.verify(requestOf(body, { "creem-signature": stranger })))).toMatchObject({
        reason: "no_matching_signature"
      })
    }))
})
