import { type HostileCase, providerConformance } from "@hookgate/testing/conformance"
import { SqliteStore } from "@hookgate/store-sqlite"
import { Effect } from "effect"
import { Stripe } from "../src/index.js"
import { checkoutSessionEvent, signStripeRequest, stripeSignatureHeader, stripeV1Signature } from "../src/testing.js"
import { NOW_S, OLD_SECRET, requestOf, SECRET } from "./support.js"

const body = checkoutSessionEvent("evt_h", "checkout.session.completed", { id: "cs_h" })
const signedAt = (timestamp: number, payload = body) => stripeSignatureHeader(SECRET, payload, { timestamp })
const withHeader = (header: string, payload: string | Uint8Array = body) => requestOf(payload, { "stripe-signature": header })
const signed = (payload: string | Uint8Array) => Effect.map(stripeSignatureHeader(SECRET, payload), (h) => withHeader(h, payload))
const validV1 = stripeV1Signature(SECRET, NOW_S, body)

/** Sets a field of a parsed event, or removes it when the value is undefined. */
const setOrDrop = (target: Record<string, unknown>, key: string, value: unknown) => {
  if (value === undefined) delete target[key]
  else target[key] = value
}

// Stripe's own header shapes; the shared rows (wrong secret, tampering, the window, bodies, ids) are the suite's.
const cases: ReadonlyArray<HostileCase> = [
  { name: "an empty Stripe-Signature", request: Effect.succeed(withHeader("")), expected: { refused: "missing_header" } },
  { name: "a Stripe-Signature of blanks", request: Effect.succeed(withHeader("  \t")), expected: { refused: "missing_header" } },
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
  { name: "a timestamp that is not a number", request: Effect.map(validV1, (v1) => withHeader(`t=soon,v1=${v1}`)), expected: { refused: "malformed_header" } },
  { name: "a negative timestamp", request: Effect.map(validV1, (v1) => withHeader(`t=-${NOW_S},v1=${v1}`)), expected: { refused: "malformed_header" } },
  { name: "no timestamp", request: Effect.map(validV1, (v1) => withHeader(`v1=${v1}`)), expected: { refused: "malformed_header" } },
  { name: "no signature", request: Effect.succeed(withHeader(`t=${NOW_S}`)), expected: { refused: "malformed_header" } },
  {
    name: "a truncated signature",
    request: Effect.map(validV1, (v1) => withHeader(`t=${NOW_S},v1=${v1.slice(0, 40)}`)),
    expected: { refused: "malformed_header" }
  },
  { name: "a signature that is not hex", request: Effect.succeed(withHeader(`t=${NOW_S},v1=${"zz".repeat(32)}`)), expected: { refused: "malformed_header" } },
  { name: "a tampered timestamp", request: Effect.map(validV1, (v1) => withHeader(`t=${NOW_S + 1},v1=${v1}`)), expected: { refused: "no_matching_signature" } },
  {
    name: "a validly signed async success without a session id",
    request: signed(checkoutSessionEvent("evt_h", "checkout.session.async_payment_succeeded", { id: "cs_h" }).replace(`"id":"cs_h",`, "")),
    expected: { unfulfillable: true }
  }
]

providerConformance({
  name: "stripe",
  make: (options) => Stripe.make(options),
  sign: ({ body, secrets: [first, ...more], timestamp }) => signStripeRequest(first, body, { timestamp, alsoSignWith: more }),
  secrets: [SECRET, OLD_SECRET],
  strangerSecret: "whsec_not_the_endpoint_secret",
  paying: ({ eventId, orderId, email, amount, currency }) => {
    const event = JSON.parse(checkoutSessionEvent(eventId, "checkout.session.completed", { id: "cs_placeholder" }))
    const session = event.data.object
    setOrDrop(session, "id", orderId)
    setOrDrop(session.customer_details, "email", email)
    setOrDrop(session, "amount_total", amount)
    setOrDrop(session, "currency", currency)
    return JSON.stringify(event)
  },
  ignored: (eventId) => JSON.stringify({ id: eventId, object: "event", type: "charge.refunded", data: { object: { id: "ch_1" } } }),
  timestamps: { defaultToleranceSeconds: 300 },
  severalSignatures: true,
  cases,
  store: () => SqliteStore.layer({ filename: ":memory:" }),
  now: NOW_S
})
