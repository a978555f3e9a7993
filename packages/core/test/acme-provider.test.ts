import { providerConformance } from "@hookgate/testing/conformance"
import { hmacSha256, importHmacKey, toHex, utf8, WebhookRequest } from "@hookgate/core/providers"
import { Effect } from "effect"
import * as Acme from "./acme-provider.js"

// The plugin docs/plugins.md shows, run through the suite the page tells a plugin author to run.
const sign = (secret: string, body: string | Uint8Array, timestamp: number) =>
  Effect.gen(function*() {
    const bytes = typeof body === "string" ? utf8(body) : body
    const mac = yield* hmacSha256(yield* importHmacKey(secret), utf8(`${timestamp}.`), bytes)
    return WebhookRequest.fromParts(bytes, { "acme-signature": `t=${timestamp},v1=${toHex(mac)}` })
  })

/** Sets a field, or removes it when the value is undefined. */
const setOrDrop = (target: Record<string, unknown>, key: string, value: unknown) => {
  if (value === undefined) delete target[key]
  else target[key] = value
}

providerConformance({
  name: "acme",
  make: Acme.make,
  sign: ({ body, secrets: [secret], timestamp }) => sign(secret, body, timestamp),
  secrets: ["acme_secret_current", "acme_secret_rolled"],
  strangerSecret: "acme_secret_of_someone_else",
  paying: ({ eventId, orderId, email, amount, currency }) => {
    const order: Record<string, unknown> = {}
    setOrDrop(order, "ref", orderId)
    setOrDrop(order, "buyer", email)
    setOrDrop(order, "cents", amount)
    setOrDrop(order, "currency", currency)
    return JSON.stringify({ id: eventId, type: "order.paid", order })
  },
  ignored: (eventId) => JSON.stringify({ id: eventId, type: "order.refunded", order: {} }),
  timestamps: { defaultToleranceSeconds: 300 },
  severalSignatures: false
})
