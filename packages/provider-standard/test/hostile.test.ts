import { type HostileCase, providerConformance } from "@hookgate/testing/conformance"
import { SqliteStore } from "@hookgate/store-sqlite"
import { Effect } from "effect"
import { signStandardRequest, standardSignature } from "../src/testing.js"
import { StandardWebhooks } from "../src/index.js"
import { NOW_S, OLD_SECRET, orderPaid, polarFulfilment, requestOf, SECRET } from "./support.js"

const body = orderPaid("ord_h")
const ID = "msg_hostile"
const headers = (signature: string, overrides: Record<string, string | undefined> = {}) => {
  const all: Record<string, string | undefined> = {
    "webhook-id": ID,
    "webhook-timestamp": String(NOW_S),
    "webhook-signature": signature,
    ...overrides
  }
  return Object.fromEntries(Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== undefined))
}
const valid = standardSignature(SECRET, { id: ID, timestamp: NOW_S, body })
const withValid = (overrides: Record<string, string | undefined>, payload: string | Uint8Array = body) =>
  Effect.map(valid, (signature) => requestOf(payload, headers(signature, overrides)))
const signed = (payload: string | Uint8Array) => signStandardRequest(SECRET, payload, { id: ID })

/** Sets a field of a parsed event, or removes it when the value is undefined. */
const setOrDrop = (target: Record<string, unknown>, key: string, value: unknown) => {
  if (value === undefined) delete target[key]
  else target[key] = value
}

// The scheme's own header shapes; the shared rows (wrong secret, tampering, the window, bodies, ids) are the suite's.
const cases: ReadonlyArray<HostileCase> = [
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
  { name: "webhook-id sent twice (joined as HTTP does)", request: withValid({ "webhook-id": `${ID}, ${ID}` }), expected: { refused: "malformed_header" } },
  { name: "webhook-timestamp sent twice", request: withValid({ "webhook-timestamp": `${NOW_S}, ${NOW_S}` }), expected: { refused: "malformed_header" } },
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
  { name: "a v1 entry that is not base64", request: withValid({ "webhook-signature": "v1,!!not*base64!!" }), expected: { refused: "malformed_header" } },
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
  { name: "a tampered webhook-id", request: withValid({ "webhook-id": "msg_other" }), expected: { refused: "no_matching_signature" } },
  { name: "a tampered webhook-timestamp", request: withValid({ "webhook-timestamp": String(NOW_S - 1) }), expected: { refused: "no_matching_signature" } },
  {
    name: "a validly signed order.paid without a customer",
    request: signed(JSON.stringify({ type: "order.paid", data: { id: "ord_h", status: "paid", total_amount: 1, currency: "usd" } })),
    expected: { unfulfillable: true }
  }
]

providerConformance({
  name: "polar",
  make: ({ secrets, tolerance }) =>
    StandardWebhooks.make({ name: "polar", secrets, fulfilment: polarFulfilment, ...(tolerance === undefined ? {} : { tolerance }) }),
  sign: ({ body, eventId, secrets: [first, ...more], timestamp }) => signStandardRequest(first, body, { id: eventId, timestamp, alsoSignWith: more }),
  secrets: [SECRET, OLD_SECRET],
  strangerSecret: "whsec_" + Buffer.from("somebody else's key bytes").toString("base64"),
  paying: ({ orderId, email, amount, currency }) => {
    const event = JSON.parse(orderPaid("ord_placeholder"))
    setOrDrop(event.data, "id", orderId)
    setOrDrop(event.data.customer, "email", email)
    setOrDrop(event.data, "total_amount", amount)
    setOrDrop(event.data, "currency", currency)
    return JSON.stringify(event)
  },
  ignored: () => JSON.stringify({ type: "order.created", data: {} }),
  timestamps: { defaultToleranceSeconds: 300 },
  severalSignatures: true,
  cases,
  store: () => SqliteStore.layer({ filename: ":memory:" }),
  now: NOW_S
})
