import { type HostileCase, providerConformance } from "@hookgate/testing/conformance"
import { SqliteStore } from "@hookgate/store-sqlite"
import { Effect } from "effect"
import { LemonSqueezy } from "../src/index.js"
import { lemonSqueezySignature, orderEvent, signLemonSqueezyRequest } from "../src/testing.js"
import { OLD_SECRET, requestOf, SECRET } from "./support.js"

const body = orderEvent({ orderId: "1001" })
const withHeader = (header: string, payload: string | Uint8Array = body) => requestOf(payload, { "x-signature": header })
const valid = lemonSqueezySignature(SECRET, body)
const signed = (payload: string) => signLemonSqueezyRequest(SECRET, payload)

/** Sets a field of a parsed event, or removes it when the value is undefined. */
const setOrDrop = (target: Record<string, unknown>, key: string, value: unknown) => {
  if (value === undefined) delete target[key]
  else target[key] = value
}

// Lemon Squeezy's own header shapes and states; the shared rows (wrong secret, tampering, bodies, ids) are the suite's.
const cases: ReadonlyArray<HostileCase> = [
  { name: "an empty X-Signature", request: Effect.succeed(withHeader("")), expected: { refused: "missing_header" } },
  { name: "an X-Signature of blanks", request: Effect.succeed(withHeader(" \t ")), expected: { refused: "missing_header" } },
  {
    name: "only X-Event-Name, no X-Signature",
    request: Effect.succeed(requestOf(body, { "x-event-name": "order_created" })),
    expected: { refused: "missing_header" }
  },
  {
    name: "the header sent twice (joined as HTTP does)",
    request: Effect.map(valid, (h) => requestOf(body, [["X-Signature", h], ["x-signature", h]])),
    expected: { refused: "malformed_header" }
  },
  { name: "garbage", request: Effect.succeed(withHeader("not-a-signature")), expected: { refused: "malformed_header" } },
  { name: "a truncated signature", request: Effect.map(valid, (h) => withHeader(h.slice(0, 63))), expected: { refused: "malformed_header" } },
  { name: "a signature that is not hex", request: Effect.succeed(withHeader("g".repeat(64))), expected: { refused: "malformed_header" } },
  { name: "a signature with a scheme prefix", request: Effect.map(valid, (h) => withHeader(`sha256=${h}`)), expected: { refused: "malformed_header" } },
  { name: "a base64 signature", request: Effect.map(valid, (h) => withHeader(Buffer.from(h, "hex").toString("base64"))), expected: { refused: "malformed_header" } },
  {
    name: "a tampered customer email",
    request: Effect.map(valid, (h) => withHeader(h, body.replace("buyer@example.com", "mallory@example.com"))),
    expected: { refused: "no_matching_signature" }
  },
  {
    name: "a tampered status",
    request: Effect.map(lemonSqueezySignature(SECRET, orderEvent({ orderId: "1001", status: "pending" })), (h) =>
      withHeader(h, orderEvent({ orderId: "1001", status: "paid" }))),
    expected: { refused: "no_matching_signature" }
  },
  { name: "an upper-case hex signature", request: Effect.map(valid, (h) => withHeader(h.toUpperCase())), expected: { sent: true } },
  {
    name: "an X-Event-Name that disagrees with the signed body (the body's name counts)",
    request: Effect.map(valid, (h) => requestOf(body, { "x-signature": h, "x-event-name": "order_refunded" })),
    expected: { sent: true }
  },
  {
    name: "a validly signed paid order without a currency",
    request: signed(body.replace(`"currency":"USD",`, "")),
    expected: { unfulfillable: true }
  },
  {
    name: "a validly signed order_created without meta.event_name",
    request: signed(body.replace(`"event_name":"order_created",`, "")),
    expected: { malformed: true }
  }
]

providerConformance({
  name: "lemonsqueezy",
  make: ({ secrets }) => LemonSqueezy.make({ secrets }),
  sign: ({ body, secrets: [secret] }) => signLemonSqueezyRequest(secret, body),
  secrets: [SECRET, OLD_SECRET],
  strangerSecret: "someone_elses_signing_secret",
  paying: ({ orderId, email, amount, currency }) => {
    const event = JSON.parse(orderEvent({ orderId: "placeholder" }))
    setOrDrop(event.data, "id", orderId)
    setOrDrop(event.data.attributes, "user_email", email)
    setOrDrop(event.data.attributes, "total", amount)
    setOrDrop(event.data.attributes, "currency", currency)
    return JSON.stringify(event)
  },
  // Lemon Squeezy sends no event id: the receipt's id is built from the body (`<event_name>:<data.type>:<data.id>`,
  // absent parts left out), so the suite's ignored event is one of a type added later, without data, named by the id.
  ignored: (eventId) => JSON.stringify({ meta: { event_name: eventId, test_mode: false } }),
  severalSignatures: false,
  cases,
  store: () => SqliteStore.layer({ filename: ":memory:" })
})
