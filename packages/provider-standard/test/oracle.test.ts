import { describeEachHmac } from "@hookgate/testing/conformance"
import { expect } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { Webhook } from "standardwebhooks"
import { signStandardRequest, standardSignature } from "../src/testing.js"
import { failureOf, makeProvider, OLD_SECRET, orderPaid, RAW_SECRET, requestOf, SECRET } from "./support.js"

// The `standardwebhooks` package is the oracle: what it signs we accept, and what
// we sign it accepts. Its verify() reads the real clock, so these tests set
// TestClock to the real time and sign at it.
const realNow = Effect.gen(function*() {
  const now = Date.now()
  yield* TestClock.setTime(now)
  return { date: new Date(Math.floor(now / 1000) * 1000), seconds: Math.floor(now / 1000) }
})

const body = orderPaid("ord_1")

// CRLF, tabs, runs of blanks, non-ASCII text, a no-break space and U+2028 inside strings.
const unusual =
  "{\r\n\t\"type\" :  \"order.paid\",\t\"data\": {\"id\": \"ord_日本\", \"status\": \"paid\",\n" +
  "  \"total_amount\": 2900,\r\n \"currency\": \"eur\", \"customer\": {\"email\": \"zoë@example.com\"},\n" +
  "  \"metadata\": {\"note\": \"🧾\u00a0\u2028 \\u00e9\"}}}  \n\t"

const headersOf = (prefix: "webhook" | "svix", id: string, seconds: number, signature: string) => ({
  [`${prefix}-id`]: id,
  [`${prefix}-timestamp`]: String(seconds),
  [`${prefix}-signature`]: signature
})

describeEachHmac("standard webhooks: the standardwebhooks package as oracle", (it) => {
  for (const prefix of ["webhook", "svix"] as const) {
    it.effect(`a message signed by standardwebhooks is accepted under ${prefix}-* headers, with webhook-id as event id`, () =>
      Effect.gen(function*() {
        const { date, seconds } = yield* realNow
        const provider = yield* makeProvider()
        const signature = new Webhook(SECRET).sign("msg_oracle_1", date, body)
        const event = yield* provider.verify(requestOf(body, headersOf(prefix, "msg_oracle_1", seconds, signature)))
        expect(event).toMatchObject({ provider: "polar", id: "msg_oracle_1", type: "order.paid" })
      }))
  }

  it.effect("a message signed by hookgate is accepted by standardwebhooks' verify, and a tampered one is not", () =>
    Effect.gen(function*() {
      const { date, seconds } = yield* realNow
      const request = yield* signStandardRequest(SECRET, body, { id: "msg_ours" })
      const oracle = new Webhook(SECRET)
      expect(oracle.verify(body, request.headers)).toEqual(JSON.parse(body))
      expect(request.header("webhook-signature")).toBe(oracle.sign("msg_ours", date, body))
      expect(request.header("webhook-timestamp")).toBe(String(seconds))
      expect(() => oracle.verify(`${body} `, request.headers)).toThrow()
      expect(() => new Webhook(OLD_SECRET).verify(body, request.headers)).toThrow()
    }))

  it.effect("non-ASCII text and unusual whitespace verify both ways, as bytes", () =>
    Effect.gen(function*() {
      const { date, seconds } = yield* realNow
      const provider = yield* makeProvider()
      const theirs = new Webhook(SECRET).sign("msg_u", date, unusual)
      const event = yield* provider.verify(requestOf(unusual, headersOf("webhook", "msg_u", seconds, theirs)))
      expect(event.type).toBe("order.paid")
      const ours = yield* standardSignature(SECRET, { id: "msg_u", timestamp: seconds, body: unusual })
      expect(ours).toBe(theirs)
      expect(new Webhook(SECRET).verify(unusual, headersOf("webhook", "msg_u", seconds, ours))).toBeTruthy()
      const reserialised = JSON.stringify(JSON.parse(unusual))
      const error = yield* failureOf(provider.verify(requestOf(reserialised, headersOf("webhook", "msg_u", seconds, theirs))))
      expect(error).toMatchObject({ reason: "no_matching_signature" })
    }))

  it.effect("during a roll, a v1 entry per secret is accepted by either secret, here and by the oracle", () =>
    Effect.gen(function*() {
      yield* realNow
      const request = yield* signStandardRequest(SECRET, body, { alsoSignWith: [OLD_SECRET] })
      expect(request.header("webhook-signature")!.split(" ")).toHaveLength(2)
      for (const secret of [SECRET, OLD_SECRET]) {
        expect((yield* (yield* makeProvider([secret])).verify(request)).type).toBe("order.paid")
        expect(new Webhook(secret).verify(body, request.headers)).toBeTruthy()
      }
    }))

  it.effect("a provider holding two secrets accepts messages signed by the oracle under either, and no other", () =>
    Effect.gen(function*() {
      const { date, seconds } = yield* realNow
      const provider = yield* makeProvider([SECRET, OLD_SECRET])
      for (const secret of [SECRET, OLD_SECRET]) {
        const signature = new Webhook(secret).sign("msg_r", date, body)
        expect((yield* provider.verify(requestOf(body, headersOf("webhook", "msg_r", seconds, signature)))).id).toBe("msg_r")
      }
      const stranger = new Webhook("whsec_" + Buffer.from("a stranger's secret key!").toString("base64")).sign("msg_r", date, body)
      expect(yield* failureOf(provider.verify(requestOf(body, headersOf("webhook", "msg_r", seconds, stranger))))).toMatchObject({
        reason: "no_matching_signature"
      })
    }))

  it.effect("entries of other versions (v1a, v2) are skipped; a v1 among them still counts", () =>
    Effect.gen(function*() {
      const { date, seconds } = yield* realNow
      const provider = yield* makeProvider()
      const v1 = new Webhook(SECRET).sign("msg_v", date, body)
      const mixed = `v1a,${Buffer.alloc(64, 1).toString("base64")} ${v1} v2,whatever`
      expect((yield* provider.verify(requestOf(body, headersOf("webhook", "msg_v", seconds, mixed)))).id).toBe("msg_v")
      expect(new Webhook(SECRET).verify(body, headersOf("webhook", "msg_v", seconds, mixed))).toBeTruthy()
    }))

  it.effect("Polar's raw secrets: secretFormat raw verifies what Polar's SDK would (base64 of the UTF-8 bytes)", () =>
    Effect.gen(function*() {
      const { date, seconds } = yield* realNow
      const provider = yield* makeProvider([RAW_SECRET], { secretFormat: "raw" })
      const polarSdkStyle = new Webhook(Buffer.from(RAW_SECRET, "utf-8").toString("base64"))
      const signature = polarSdkStyle.sign("msg_p", date, body)
      expect((yield* provider.verify(requestOf(body, headersOf("webhook", "msg_p", seconds, signature)))).id).toBe("msg_p")
      expect(signature).toBe(new Webhook(RAW_SECRET, { format: "raw" }).sign("msg_p", date, body))
      const ours = yield* signStandardRequest(RAW_SECRET, body, { id: "msg_p", secretFormat: "raw" })
      expect(polarSdkStyle.verify(body, ours.headers)).toBeTruthy()
      // Read as base64 (the default), a Polar secret does not decode: refused when the provider is made.
      const asBase64 = yield* Effect.exit(makeProvider([RAW_SECRET]))
      expect(asBase64._tag).toBe("Failure")
    }))
})
