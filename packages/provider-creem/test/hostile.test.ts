import { type HostileCase, providerConformance } from "@hookgate/testing/conformance"
import { SqliteStore } from "@hookgate/store-sqlite"
import { Effect } from "effect"
import { Creem } from "../src/index.js"
import { checkoutCompletedEvent, creemEvent, creemSignature, signCreemRequest } from "../src/testing.js"
import { OLD_SECRET, requestOf, SECRET } from "./support.js"

const body = checkoutCompletedEvent("evt_h", { orderId: "ord_h" })
const withHeader = (header: string, payload: string | Uint8Array = body) => requestOf(payload, { "creem-signature": header })
const valid = creemSignature(SECRET, body)

/** Sets a field of a parsed event, or removes it when the value is undefined. */
const setOrDrop = (target: Record<string, unknown>, key: string, value: unknown) => {
  if (value === undefined) delete target[key]
  else target[key] = value
}

// Creem's own header shapes; the shared rows (wrong secret, tampering, bodies, ids) are the suite's.
const cases: ReadonlyArray<HostileCase> = [
  { name: "an empty creem-signature", request: Effect.succeed(withHeader("")), expected: { refused: "missing_header" } },
  { name: "a creem-signature of blanks", request: Effect.succeed(withHeader(" \t ")), expected: { refused: "missing_header" } },
  {
    name: "the header sent twice (joined as HTTP does)",
    request: Effect.map(valid, (h) => requestOf(body, [["creem-signature", h], ["Creem-Signature", h]])),
    expected: { refused: "malformed_header" }
  },
  { name: "garbage", request: Effect.succeed(withHeader("not-a-signature")), expected: { refused: "malformed_header" } },
  { name: "a truncated signature", request: Effect.map(valid, (h) => withHeader(h.slice(0, 63))), expected: { refused: "malformed_header" } },
  { name: "a signature that is not hex", request: Effect.succeed(withHeader("g".repeat(64))), expected: { refused: "malformed_header" } },
  { name: "a signature with a scheme prefix", request: Effect.map(valid, (h) => withHeader(`sha256=${h}`)), expected: { refused: "malformed_header" } },
  {
    name: "a tampered customer email",
    request: Effect.map(valid, (h) => withHeader(h, body.replace("buyer@example.com", "mallory@example.com"))),
    expected: { refused: "no_matching_signature" }
  },
  { name: "an upper-case hex signature", request: Effect.map(valid, (h) => withHeader(h.toUpperCase())), expected: { sent: true } }
]

providerConformance({
  name: "creem",
  make: ({ secrets }) => Creem.make({ secrets }),
  sign: ({ body, secrets: [secret] }) => signCreemRequest(secret, body),
  secrets: [SECRET, OLD_SECRET],
  strangerSecret: "whsec_someone_else",
  paying: ({ eventId, orderId, email, amount, currency }) => {
    const event = JSON.parse(checkoutCompletedEvent(eventId, { orderId: "ord_placeholder" }))
    setOrDrop(event.object.order, "id", orderId)
    setOrDrop(event.object.customer, "email", email)
    setOrDrop(event.object.order, "amount", amount)
    setOrDrop(event.object.order, "currency", currency)
    return JSON.stringify(event)
  },
  ignored: (eventId) => creemEvent(eventId, "refund.created", { id: "ref_1" }),
  severalSignatures: false,
  cases,
  store: () => SqliteStore.layer({ filename: ":memory:" })
})
