import { OrderStore } from "@hookgate/core"
import { type SignatureFailure, type WebhookRequest } from "@hookgate/core/providers"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { signStandardRequest, standardSignature } from "../src/testing.js"
import {
  atNow,
  expectNoSecrets,
  failureOf,
  makeProvider,
  NOW_S,
  orderPaid,
  pipeline,
  receivePolar,
  requestOf,
  SECRET
} from "./support.js"

const body = orderPaid("ord_h")
const ID = "msg_hostile"
const v1At = (timestamp: number, payload: string | Uint8Array = body, id = ID) =>
  standardSignature(SECRET, { id, timestamp, body: payload })
const headers = (signature: string, overrides: Record<string, string | undefined> = {}) => {
  const all: Record<string, string | undefined> = {
    "webhook-id": ID,
    "webhook-timestamp": String(NOW_S),
    "webhook-signature": signature,
    ...overrides
  }
  return Object.fromEntries(Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== undefined))
}
const valid = v1At(NOW_S)
const withValid = (overrides: Record<string, string | undefined>, payload: string | Uint8Array = body) =>
  Effect.map(valid, (signature) => requestOf(payload, headers(signature, overrides)))
const signedAt = (timestamp: number) =>
  Effect.map(v1At(timestamp), (signature) => requestOf(body, headers(signature, { "webhook-timestamp": String(timestamp) })))
const signed = (payload: string | Uint8Array) => signStandardRequest(SECRET, payload, { id: ID })

type Expected = { readonly refused: SignatureFailure } | { readonly malformed: true } | { readonly sent: true }
interface Case {
  readonly name: string
  readonly request: Effect.Effect<WebhookRequest>
  readonly expected: Expected
  readonly toleranceSeconds?: number
}

const cases: ReadonlyArray<Case> = [
  { name: "no signature headers at all", request: Effect.succeed(requestOf(body, {})), expected: { refused: "missing_header" } },
  { name: "no webhook-id", request: withValid({ "webhook-id": undefined }), expected: { refused: "missing_header" } },
  { name: "no webhook-timestamp", request: withValid({ "webhook-timestamp": undefined }), expected: { refused: "missing_header" } },
  { name: "no webhook-signature", request: withValid({ "webhook-signature": undefined }), expected: { refused: "missing_header" } },
  { name: "an empty webhook-id", request: withValid({ "webhook-id": "" }), expected: { refused: "missing_header" } },
  { name: "an empty webhook-signature", request: withValid({ "webhook-signature": " " }), expected: { refused: "missing_header" } },
  {
    name: "webhook-id beside svix-timestamp and svix-signature (names mixed)",
    request: Effect.map(valid, (signature) =>
      requestOf(body, { "webhook-id": ID, "svix-timestamp": String(NOW_S), "svix-signature": signature })),
    expected: { refused: "missing_header" }
  },
  {
    name: "webhook-id sent twice (joined as HTTP does)",
    request: withValid({ "webhook-id": `${ID}, ${ID}` }),
    expected: { refused: "malformed_header" }
  },
  {
    name: "webhook-timestamp sent twice",
    request: withValid({ "webhook-timestamp": `${NOW_S}, ${NOW_S}` }),
    expected: { refused: "malformed_header" }
  },
  {
    name: "webhook-signature sent twice",
    request: Effect.map(valid, (signature) =>
      requestOf(body, [["webhook-id", ID], ["webhook-timestamp", String(NOW_S)], ["webhook-signature", signature], [
        "Webhook-Signature",
        signature
      ]])),
    expected: { refused: "malformed_header" }
  },
  { name: "a timestamp that is not a number", request: withValid({ "webhook-timestamp": "yesterday" }), expected: { refused: "malformed_header" } },
  { name: "a timestamp in milliseconds", request: withValid({ "webhook-timestamp": String(NOW_S * 1000) }), expected: { refused: "malformed_header" } },
  { name: "a signature entry without a version", request: withValid({ "webhook-signature": "garbage" }), expected: { refused: "malformed_header" } },
  {
    name: "a v1 entry that is not base64",
    request: withValid({ "webhook-signature": "v1,!!not*base64!!" }),
    expected: { refused: "malformed_header" }
  },
  {
    name: "a v1 entry of the wrong length",
    request: withValid({ "webhook-signature": `v1,${Buffer.alloc(16, 7).toString("base64")}` }),
    expected: { refused: "malformed_header" }
  },
  {
    name: "only an asymmetric v1a entry",
    request: withValid({ "webhook-signature": `v1a,${Buffer.alloc(64, 7).toString("base64")}` }),
    expected: { refused: "malformed_header" }
  },
  {
    name: "the wrong secret",
    request: Effect.map(
      standardSignature("whsec_" + Buffer.from("somebody else's key bytes").toString("base64"), { id: ID, timestamp: NOW_S, body }),
      (signature) => requestOf(body, headers(signature))
    ),
    expected: { refused: "no_matching_signature" }
  },
  { name: "a tampered body", request: withValid({}, body.replace("2900", "29")), expected: { refused: "no_matching_signature" } },
  { name: "a tampered webhook-id", request: withValid({ "webhook-id": "msg_other" }), expected: { refused: "no_matching_signature" } },
  {
    name: "a tampered webhook-timestamp",
    request: withValid({ "webhook-timestamp": String(NOW_S - 1) }),
    expected: { refused: "no_matching_signature" }
  },
  { name: "signed exactly 300 s ago", request: signedAt(NOW_S - 300), expected: { sent: true } },
  { name: "signed 301 s ago", request: signedAt(NOW_S - 301), expected: { refused: "timestamp_too_old" } },
  { name: "signed 300 s ahead", request: signedAt(NOW_S + 300), expected: { sent: true } },
  { name: "signed 301 s ahead", request: signedAt(NOW_S + 301), expected: { refused: "timestamp_in_future" } },
  { name: "signed 10 s ago under a 10 s tolerance", request: signedAt(NOW_S - 10), expected: { sent: true }, toleranceSeconds: 10 },
  {
    name: "signed 11 s ahead under a 10 s tolerance",
    request: signedAt(NOW_S + 11),
    expected: { refused: "timestamp_in_future" },
    toleranceSeconds: 10
  },
  { name: "a validly signed body that is not JSON", request: signed("order paid"), expected: { malformed: true } },
  { name: "a validly signed body that is not UTF-8", request: signed(new Uint8Array([0x7b, 0x80, 0x7d])), expected: { malformed: true } },
  { name: "a validly signed event without a type", request: signed(`{"data":{}}`), expected: { malformed: true } },
  {
    name: "a validly signed order.paid without a customer",
    request: signed(JSON.stringify({ type: "order.paid", data: { id: "ord_h", status: "paid", total_amount: 1, currency: "usd" } })),
    expected: { malformed: true }
  },
  {
    name: "a validly signed order.paid whose mapping yields a fractional amount",
    request: signed(orderPaid("ord_h", { amount: 29.99 })),
    expected: { malformed: true }
  },
  {
    name: "a validly signed order.paid whose mapping yields an empty email",
    request: signed(orderPaid("ord_h", { email: " " })),
    expected: { malformed: true }
  }
]

describe("standard webhooks: hostile requests through the pipeline", () => {
  for (const c of cases) {
    const outcome = "sent" in c.expected ? "is sent" : "refused" in c.expected ? `is refused: ${c.expected.refused}` : "is malformed"
    it.effect(`${c.name} ${outcome}${"sent" in c.expected ? "" : ", and nothing is stored"}`, () =>
      Effect.gen(function*() {
        yield* atNow
        const request = yield* c.request
        const store = yield* OrderStore
        if ("sent" in c.expected) {
          expect((yield* receivePolar(request))._tag).toBe("Sent")
          expect((yield* store.stats).orders.sent).toBe(1)
          return
        }
        const error = yield* failureOf(receivePolar(request))
        if ("refused" in c.expected) {
          expect(error).toMatchObject({ _tag: "SignatureError", provider: "polar", reason: c.expected.refused })
          expectNoSecrets(error, (yield* valid).slice(3), (yield* v1At(NOW_S, request.body)).slice(3))
        } else {
          expect(error).toMatchObject({ _tag: "MalformedPayload", provider: "polar" })
        }
        const stats = yield* store.stats
        expect(stats.orders).toEqual({ pending: 0, sent: 0, failed: 0, capped: 0 })
        expect(stats.receipts).toBe(0)
      }).pipe(
        Effect.provide(
          pipeline(makeProvider(undefined, c.toleranceSeconds === undefined ? {} : { tolerance: `${c.toleranceSeconds} seconds` }))
        )
      ))
  }
})
