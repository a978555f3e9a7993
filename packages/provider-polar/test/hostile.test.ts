import { type HostileCase, providerConformance } from "@hookgate/testing/conformance"
import { SqliteStore } from "@hookgate/store-sqlite"
import { standardSignature } from "@hookgate/provider-standard/testing"
import { Effect } from "effect"
import { Polar } from "../src/index.js"
import { orderEvent, polarEvent, signPolarRequest } from "../src/testing.js"
import { NOW_S, OLD_SECRET, requestOf, SECRET } from "./support.js"

const body = orderEvent({ orderId: "ord_h" })
const ID = "msg_hostile"
const headers = (signature: string, overrides: Record<string, string | undefined> = {}) =>
  Object.fromEntries(
    Object.entries({ "webhook-id": ID, "webhook-timestamp": String(NOW_S), "webhook-signature": signature, ...overrides })
      .filter((entry): entry is [string, string] => entry[1] !== undefined)
  )
const valid = standardSignature(SECRET, { id: ID, timestamp: NOW_S, body }, "raw")
const withValid = (overrides: Record<string, string | undefined>, payload: string = body) =>
  Effect.map(valid, (signature) => requestOf(payload, headers(signature, overrides)))
const signed = (payload: string) => signPolarRequest(SECRET, payload, { id: ID })

/** Sets a field of a parsed event, or removes it when the value is undefined. */
const setOrDrop = (target: Record<string, unknown>, key: string, value: unknown) => {
  if (value === undefined) delete target[key]
  else target[key] = value
}

// Polar's own rows: the header shapes are provider-standard's (its own table covers them all);
// these check them through Polar's secret format, and Polar's states.
const cases: ReadonlyArray<HostileCase> = [
  { name: "no webhook-id", request: withValid({ "webhook-id": undefined }), expected: { refused: "missing_header" } },
  { name: "no webhook-signature", request: withValid({ "webhook-signature": undefined }), expected: { refused: "missing_header" } },
  { name: "webhook-signature sent twice (joined as HTTP does)", request: Effect.map(valid, (s) => requestOf(body, headers(`${s}, ${s}`))), expected: { refused: "malformed_header" } },
  { name: "a v1 entry that is not base64", request: withValid({ "webhook-signature": "v1,!!not*base64!!" }), expected: { refused: "malformed_header" } },
  { name: "only an asymmetric v1a entry", request: withValid({ "webhook-signature": `v1a,${Buffer.alloc(64, 7).toString("base64")}` }), expected: { refused: "malformed_header" } },
  { name: "a tampered webhook-id", request: withValid({ "webhook-id": "msg_other" }), expected: { refused: "no_matching_signature" } },
  { name: "a tampered webhook-timestamp", request: withValid({ "webhook-timestamp": String(NOW_S - 1) }), expected: { refused: "no_matching_signature" } },
  {
    name: "signed with the secret's base64 decoding as the key (the spec's whsec_ reading), not Polar's",
    request: Effect.map(standardSignature(`whsec_${Buffer.from(SECRET).toString("base64")}`, { id: ID, timestamp: NOW_S, body }), (s) => requestOf(body, headers(s))),
    expected: { sent: true }
  },
  {
    name: "signed with the secret string read as base64 (a Polar secret is not)",
    request: Effect.map(
      standardSignature(`whsec_${Buffer.from(SECRET.replaceAll("_", "")).toString("base64")}`, { id: ID, timestamp: NOW_S, body }),
      (s) => requestOf(body, headers(s))
    ),
    expected: { refused: "no_matching_signature" }
  },
  { name: "a validly signed order.paid without a customer", request: signed(JSON.stringify({ ...JSON.parse(body), data: { ...JSON.parse(body).data, customer: undefined } })), expected: { unfulfillable: true } },
  { name: "a validly signed order.paid without a status", request: signed(body.replace(`"status":"paid",`, "")), expected: { unfulfillable: true } }
]

providerConformance({
  name: "polar",
  make: ({ secrets, tolerance }) => Polar.make({ secrets, ...(tolerance === undefined ? {} : { tolerance }) }),
  sign: ({ body, eventId, secrets: [first, ...more], timestamp }) => signPolarRequest(first, body, { id: eventId, timestamp, alsoSignWith: more }),
  secrets: [SECRET, OLD_SECRET],
  strangerSecret: "polar_whs_s0me0neElsesS3cr3t",
  paying: ({ orderId, email, amount, currency }) => {
    const event = JSON.parse(orderEvent({ orderId: "ord_placeholder" }))
    setOrDrop(event.data, "id", orderId)
    setOrDrop(event.data.customer, "email", email)
    setOrDrop(event.data, "total_amount", amount)
    setOrDrop(event.data, "currency", currency)
    return JSON.stringify(event)
  },
  ignored: () => polarEvent("order.refunded", { id: "ord_r", status: "refunded" }),
  timestamps: { defaultToleranceSeconds: 300 },
  severalSignatures: true,
  cases,
  store: () => SqliteStore.layer({ filename: ":memory:" }),
  now: NOW_S
})
