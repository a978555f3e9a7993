import { OrderStore } from "@hookgate/core"
import { type SignatureFailure, type WebhookRequest } from "@hookgate/core/providers"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { checkoutCompletedEvent, creemSignature } from "../src/testing.js"
import { expectNoSecrets, failureOf, makeProvider, pipeline, receiveCreem, requestOf, SECRET } from "./support.js"

const body = checkoutCompletedEvent("evt_h", { orderId: "ord_h" })
const withHeader = (header: string, payload: string | Uint8Array = body) => requestOf(payload, { "creem-signature": header })
const valid = creemSignature(SECRET, body)
const signed = (payload: string | Uint8Array) => Effect.map(creemSignature(SECRET, payload), (h) => withHeader(h, payload))
const checkoutWith = (change: (object: Record<string, any>) => void) => {
  const event = JSON.parse(body)
  change(event.object)
  return JSON.stringify(event)
}

type Expected = { readonly refused: SignatureFailure } | { readonly malformed: true } | { readonly sent: true }
interface Case {
  readonly name: string
  readonly request: Effect.Effect<WebhookRequest>
  readonly expected: Expected
}

const cases: ReadonlyArray<Case> = [
  { name: "no creem-signature header", request: Effect.succeed(requestOf(body, {})), expected: { refused: "missing_header" } },
  { name: "an empty header", request: Effect.succeed(withHeader("")), expected: { refused: "missing_header" } },
  { name: "a header of blanks", request: Effect.succeed(withHeader(" \t ")), expected: { refused: "missing_header" } },
  {
    name: "the header sent twice (joined as HTTP does)",
    request: Effect.map(valid, (h) => requestOf(body, [["creem-signature", h], ["Creem-Signature", h]])),
    expected: { refused: "malformed_header" }
  },
  { name: "garbage", request: Effect.succeed(withHeader("not-a-signature")), expected: { refused: "malformed_header" } },
  { name: "a truncated signature", request: Effect.map(valid, (h) => withHeader(h.slice(0, 63))), expected: { refused: "malformed_header" } },
  { name: "a signature that is not hex", request: Effect.succeed(withHeader("g".repeat(64))), expected: { refused: "malformed_header" } },
  {
    name: "a signature with a scheme prefix",
    request: Effect.map(valid, (h) => withHeader(`sha256=${h}`)),
    expected: { refused: "malformed_header" }
  },
  {
    name: "the wrong secret",
    request: Effect.map(creemSignature("whsec_someone_else", body), (h) => withHeader(h)),
    expected: { refused: "no_matching_signature" }
  },
  {
    name: "a tampered body",
    request: Effect.map(valid, (h) => withHeader(h, body.replace("buyer@example.com", "mallory@example.com"))),
    expected: { refused: "no_matching_signature" }
  },
  {
    name: "a body with a trailing newline added",
    request: Effect.map(valid, (h) => withHeader(h, `${body}\n`)),
    expected: { refused: "no_matching_signature" }
  },
  { name: "an upper-case hex signature", request: Effect.map(valid, (h) => withHeader(h.toUpperCase())), expected: { sent: true } },
  { name: "a validly signed body that is not JSON", request: signed("checkout.completed"), expected: { malformed: true } },
  {
    name: "a validly signed body that is not UTF-8",
    request: signed(new Uint8Array([0x7b, 0xc3, 0x28, 0x7d])),
    expected: { malformed: true }
  },
  { name: "a validly signed event without eventType", request: signed(`{"id":"evt_x","object":{}}`), expected: { malformed: true } },
  {
    name: "a validly signed checkout without a customer email",
    request: signed(checkoutWith((o) => delete o.customer.email)),
    expected: { malformed: true }
  },
  {
    name: "a validly signed checkout with a blank customer email",
    request: signed(checkoutWith((o) => (o.customer.email = "  "))),
    expected: { malformed: true }
  },
  {
    name: "a validly signed checkout with a text amount",
    request: signed(checkoutWith((o) => (o.order.amount = "10.00"))),
    expected: { malformed: true }
  },
  {
    name: "a validly signed checkout without an order id",
    request: signed(checkoutWith((o) => delete o.order.id)),
    expected: { malformed: true }
  }
]

describe("creem: hostile requests through the pipeline", () => {
  for (const c of cases) {
    const outcome = "sent" in c.expected ? "is sent" : "refused" in c.expected ? `is refused: ${c.expected.refused}` : "is malformed"
    it.effect(`${c.name} ${outcome}${"sent" in c.expected ? "" : ", and nothing is stored"}`, () =>
      Effect.gen(function*() {
        const request = yield* c.request
        const store = yield* OrderStore
        if ("sent" in c.expected) {
          expect((yield* receiveCreem(request))._tag).toBe("Sent")
          expect((yield* store.stats).orders.sent).toBe(1)
          return
        }
        const error = yield* failureOf(receiveCreem(request))
        if ("refused" in c.expected) {
          expect(error).toMatchObject({ _tag: "SignatureError", provider: "creem", reason: c.expected.refused })
          expectNoSecrets(error, yield* valid, yield* creemSignature(SECRET, request.body))
        } else {
          expect(error).toMatchObject({ _tag: "MalformedPayload", provider: "creem" })
        }
        const stats = yield* store.stats
        expect(stats.orders).toEqual({ pending: 0, sent: 0, failed: 0, capped: 0 })
        expect(stats.receipts).toBe(0)
      }).pipe(Effect.provide(pipeline(makeProvider()))))
  }
})
