import { OrderStore } from "@hookgate/core"
import { type SignatureFailure, type WebhookRequest } from "@hookgate/core/providers"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { checkoutSessionEvent, stripeSignatureHeader, stripeV1Signature } from "../src/testing.js"
import { atNow, expectNoSecrets, failureOf, makeProvider, NOW_S, pipeline, receiveStripe, requestOf, SECRET } from "./support.js"

const body = checkoutSessionEvent("evt_h", "checkout.session.completed", { id: "cs_h" })
const signedAt = (timestamp: number, payload = body) => stripeSignatureHeader(SECRET, payload, { timestamp })
const withHeader = (header: string, payload: string | Uint8Array = body) => requestOf(payload, { "stripe-signature": header })
const signed = (payload: string | Uint8Array) => Effect.map(stripeSignatureHeader(SECRET, payload), (h) => withHeader(h, payload))
const validV1 = stripeV1Signature(SECRET, NOW_S, body)

type Expected = { readonly refused: SignatureFailure } | { readonly malformed: true } | { readonly sent: true }

interface Case {
  readonly name: string
  readonly request: Effect.Effect<WebhookRequest>
  readonly expected: Expected
  readonly toleranceSeconds?: number
}

const cases: ReadonlyArray<Case> = [
  { name: "no Stripe-Signature header", request: Effect.succeed(requestOf(body, {})), expected: { refused: "missing_header" } },
  { name: "an empty header", request: Effect.succeed(withHeader("")), expected: { refused: "missing_header" } },
  { name: "a header of blanks", request: Effect.succeed(withHeader("  \t")), expected: { refused: "missing_header" } },
  {
    name: "the header sent twice (joined as HTTP does)",
    request: Effect.map(signedAt(NOW_S), (h) => requestOf(body, [["Stripe-Signature", h], ["stripe-signature", h]])),
    expected: { refused: "malformed_header" }
  },
  { name: "garbage", request: Effect.succeed(withHeader("garbage")), expected: { refused: "malformed_header" } },
  {
    name: "semicolons instead of commas",
    request: Effect.map(signedAt(NOW_S), (h) => withHeader(h.replace(",", ";"))),
    expected: { refused: "malformed_header" }
  },
  {
    name: "a timestamp that is not a number",
    request: Effect.map(validV1, (v1) => withHeader(`t=soon,v1=${v1}`)),
    expected: { refused: "malformed_header" }
  },
  {
    name: "a negative timestamp",
    request: Effect.map(validV1, (v1) => withHeader(`t=-${NOW_S},v1=${v1}`)),
    expected: { refused: "malformed_header" }
  },
  { name: "no timestamp", request: Effect.map(validV1, (v1) => withHeader(`v1=${v1}`)), expected: { refused: "malformed_header" } },
  { name: "no signature", request: Effect.succeed(withHeader(`t=${NOW_S}`)), expected: { refused: "malformed_header" } },
  {
    name: "a truncated signature",
    request: Effect.map(validV1, (v1) => withHeader(`t=${NOW_S},v1=${v1.slice(0, 40)}`)),
    expected: { refused: "malformed_header" }
  },
  {
    name: "a signature that is not hex",
    request: Effect.succeed(withHeader(`t=${NOW_S},v1=${"zz".repeat(32)}`)),
    expected: { refused: "malformed_header" }
  },
  {
    name: "the wrong secret",
    request: Effect.map(stripeSignatureHeader("whsec_not_the_endpoint_secret", body), (h) => withHeader(h)),
    expected: { refused: "no_matching_signature" }
  },
  {
    name: "a tampered body",
    request: Effect.map(signedAt(NOW_S), (h) => withHeader(h, body.replace("1900", "1"))),
    expected: { refused: "no_matching_signature" }
  },
  {
    name: "a tampered timestamp",
    request: Effect.map(validV1, (v1) => withHeader(`t=${NOW_S + 1},v1=${v1}`)),
    expected: { refused: "no_matching_signature" }
  },
  { name: "signed exactly 300 s ago", request: Effect.map(signedAt(NOW_S - 300), withHeader), expected: { sent: true } },
  {
    name: "signed 301 s ago",
    request: Effect.map(signedAt(NOW_S - 301), withHeader),
    expected: { refused: "timestamp_too_old" }
  },
  { name: "signed 300 s ahead", request: Effect.map(signedAt(NOW_S + 300), withHeader), expected: { sent: true } },
  {
    name: "signed 301 s ahead",
    request: Effect.map(signedAt(NOW_S + 301), withHeader),
    expected: { refused: "timestamp_in_future" }
  },
  {
    name: "signed 60 s ago under a 60 s tolerance",
    request: Effect.map(signedAt(NOW_S - 60), withHeader),
    expected: { sent: true },
    toleranceSeconds: 60
  },
  {
    name: "signed 61 s ago under a 60 s tolerance",
    request: Effect.map(signedAt(NOW_S - 61), withHeader),
    expected: { refused: "timestamp_too_old" },
    toleranceSeconds: 60
  },
  {
    name: "signed 61 s ahead under a 60 s tolerance",
    request: Effect.map(signedAt(NOW_S + 61), withHeader),
    expected: { refused: "timestamp_in_future" },
    toleranceSeconds: 60
  },
  { name: "a validly signed body that is not JSON", request: signed("paid, honest"), expected: { malformed: true } },
  {
    name: "a validly signed body that is not UTF-8",
    request: signed(new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])),
    expected: { malformed: true }
  },
  { name: "a validly signed event without id or type", request: signed(`{"object":"event"}`), expected: { malformed: true } },
  {
    name: "a validly signed paid session with a text amount",
    request: signed(body.replace(`"amount_total":1900`, `"amount_total":"19.00"`)),
    expected: { malformed: true }
  },
  {
    name: "a validly signed paid session with a fractional amount",
    request: signed(body.replace(`"amount_total":1900`, `"amount_total":19.5`)),
    expected: { malformed: true }
  },
  {
    name: "a validly signed paid session without any email",
    request: signed(checkoutSessionEvent("evt_h", "checkout.session.completed", { id: "cs_h", email: null })),
    expected: { malformed: true }
  },
  {
    name: "a validly signed async success without a session id",
    request: signed(
      checkoutSessionEvent("evt_h", "checkout.session.async_payment_succeeded", { id: "cs_h" }).replace(`"id":"cs_h",`, "")
    ),
    expected: { malformed: true }
  }
]

describe("stripe: hostile requests through the pipeline", () => {
  for (const c of cases) {
    const outcome = "sent" in c.expected ? "is sent" : "refused" in c.expected ? `is refused: ${c.expected.refused}` : "is malformed"
    it.effect(`${c.name} ${outcome}${"sent" in c.expected ? "" : ", and nothing is stored"}`, () =>
      Effect.gen(function*() {
        yield* atNow
        const request = yield* c.request
        const store = yield* OrderStore
        if ("sent" in c.expected) {
          expect((yield* receiveStripe(request))._tag).toBe("Sent")
          expect((yield* store.stats).orders.sent).toBe(1)
          return
        }
        const error = yield* failureOf(receiveStripe(request))
        if ("refused" in c.expected) {
          expect(error).toMatchObject({ _tag: "SignatureError", provider: "stripe", reason: c.expected.refused })
          // Neither the secret nor the signature it would have taken appears in the error.
          expectNoSecrets(error, yield* validV1, yield* stripeV1Signature(SECRET, NOW_S, request.body))
        } else {
          expect(error).toMatchObject({ _tag: "MalformedPayload", provider: "stripe" })
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
