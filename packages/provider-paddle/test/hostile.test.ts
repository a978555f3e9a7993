import { type HostileCase, providerConformance } from "@hookgate/testing/conformance"
import { SqliteStore } from "@hookgate/store-sqlite"
import { Effect } from "effect"
import { paddleEvent, paddleH1Signature, signPaddleRequest, transactionEvent } from "../src/testing/index.js"
import { customerFor, makeProvider, NOW_S, OLD_SECRET, requestOf, SECRET, server } from "./support.js"

const body = transactionEvent("evt_hostile", "transaction.completed", { id: "txn_h", customerId: customerFor("buyer@example.com") })
const validH1 = paddleH1Signature(SECRET, NOW_S, body)
const withHeader = (header: string, payload: string = body) => requestOf(payload, { "paddle-signature": header })
const signed = (payload: string) => signPaddleRequest(SECRET, payload, { timestamp: NOW_S })

/** Sets a field of a parsed event, or removes it when the value is undefined. */
const setOrDrop = (target: Record<string, unknown>, key: string, value: unknown) => {
  if (value === undefined) delete target[key]
  else target[key] = value
}

// Paddle's own header shapes and the customer lookup; the shared rows (wrong secret, tampering, the window, bodies, ids) are the suite's.
const cases: ReadonlyArray<HostileCase> = [
  { name: "an empty Paddle-Signature", request: Effect.succeed(withHeader("")), expected: { refused: "missing_header" } },
  { name: "a Paddle-Signature of blanks", request: Effect.succeed(withHeader(" \t ")), expected: { refused: "missing_header" } },
  {
    name: "the header sent twice (joined as HTTP does)",
    request: Effect.map(validH1, (h1) => requestOf(body, [["Paddle-Signature", `ts=${NOW_S};h1=${h1}`], ["paddle-signature", `ts=${NOW_S};h1=${h1}`]])),
    expected: { refused: "malformed_header" }
  },
  { name: "garbage", request: Effect.succeed(withHeader("garbage")), expected: { refused: "malformed_header" } },
  { name: "commas instead of semicolons", request: Effect.map(validH1, (h1) => withHeader(`ts=${NOW_S},h1=${h1}`)), expected: { refused: "malformed_header" } },
  { name: "Stripe's t= instead of ts=", request: Effect.map(validH1, (h1) => withHeader(`t=${NOW_S};h1=${h1}`)), expected: { refused: "malformed_header" } },
  { name: "a timestamp that is not a number", request: Effect.map(validH1, (h1) => withHeader(`ts=soon;h1=${h1}`)), expected: { refused: "malformed_header" } },
  { name: "two timestamps", request: Effect.map(validH1, (h1) => withHeader(`ts=${NOW_S};ts=${NOW_S};h1=${h1}`)), expected: { refused: "malformed_header" } },
  { name: "no timestamp", request: Effect.map(validH1, (h1) => withHeader(`h1=${h1}`)), expected: { refused: "malformed_header" } },
  { name: "no signature", request: Effect.succeed(withHeader(`ts=${NOW_S}`)), expected: { refused: "malformed_header" } },
  { name: "a truncated signature", request: Effect.map(validH1, (h1) => withHeader(`ts=${NOW_S};h1=${h1.slice(0, 40)}`)), expected: { refused: "malformed_header" } },
  { name: "a signature that is not hex", request: Effect.succeed(withHeader(`ts=${NOW_S};h1=${"zz".repeat(32)}`)), expected: { refused: "malformed_header" } },
  { name: "a tampered timestamp", request: Effect.map(validH1, (h1) => withHeader(`ts=${NOW_S + 1};h1=${h1}`)), expected: { refused: "no_matching_signature" } },
  { name: "an upper-case hex signature", request: Effect.map(validH1, (h1) => withHeader(`ts=${NOW_S};h1=${h1.toUpperCase()}`)), expected: { sent: true } },
  { name: "an unknown key beside ts and h1 (skipped)", request: Effect.map(validH1, (h1) => withHeader(`ts=${NOW_S};h1=${h1};h2=${"ab".repeat(32)}`)), expected: { sent: true } },
  {
    name: "a validly signed paid transaction whose customer Paddle does not know (404)",
    request: signed(transactionEvent("evt_h404", "transaction.completed", { id: "txn_h", customerId: "ctm_01h8bkrfe7w1vwf8xmytwnzzzz" })),
    expected: { unfulfillable: true }
  },
  {
    name: "a validly signed paid transaction whose customer_id is not a Paddle id",
    request: signed(transactionEvent("evt_hid", "transaction.completed", { id: "txn_h", customerId: "../../admin" })),
    expected: { unfulfillable: true }
  },
  {
    name: "a validly signed paid transaction without a customer_id",
    request: signed(body.replace(/"customer_id":"[^"]*",/, "")),
    expected: { unfulfillable: true }
  }
]

providerConformance({
  name: "paddle",
  make: ({ secrets, tolerance }) => makeProvider(secrets, tolerance === undefined ? {} : { tolerance }),
  sign: ({ body, secrets: [first, ...more], timestamp }) => signPaddleRequest(first, body, { timestamp, alsoSignWith: more }),
  secrets: [SECRET, OLD_SECRET],
  strangerSecret: "pdl_ntfset_01gkpjp8bkm3tm53kdgkx6sms8_s0me0neElsesK3y",
  // The email is not in Paddle's payload: the suite's email is the stand-in's customer record (none: a record without one).
  paying: ({ amount, currency, email, eventId, orderId }) => {
    const customerId = email === undefined ? server.addCustomer({}) : customerFor(String(email))
    const event = JSON.parse(transactionEvent(eventId, "transaction.completed", { id: "txn_placeholder", customerId }))
    setOrDrop(event.data, "id", orderId)
    setOrDrop(event.data.details.totals, "grand_total", typeof amount === "number" ? String(amount) : amount)
    setOrDrop(event.data, "currency_code", currency)
    return JSON.stringify(event)
  },
  ignored: (eventId) => paddleEvent(eventId, "adjustment.created", { id: "adj_01h8bkrfe7w1vwf8xmytwn51eg", action: "refund", transaction_id: "txn_h" }),
  timestamps: { defaultToleranceSeconds: 5 },
  severalSignatures: true,
  cases,
  store: () => SqliteStore.layer({ filename: ":memory:" }),
  now: NOW_S
})
