// docs/plugins.md's worked example, run: the page's copy of the Lemon Squeezy plugin (the
// consumer test writes its four files beside this one) through the conformance suite the
// page tells a plugin author to run, signed by the published package's signer.
import { providerConformance } from "@hookgate/testing/conformance"
import { orderEvent, signLemonSqueezyRequest } from "@hookgate/provider-lemonsqueezy/testing"
import * as LemonSqueezy from "./LemonSqueezy.js"

/** Sets a field, or removes it when the value is undefined. */
const setOrDrop = (target: Record<string, unknown>, key: string, value: unknown) => {
  if (value === undefined) delete target[key]
  else target[key] = value
}

providerConformance({
  name: "lemonsqueezy",
  make: ({ secrets }) => LemonSqueezy.make({ secrets }),
  sign: ({ body, secrets: [secret] }) => signLemonSqueezyRequest(secret, body),
  secrets: ["doc_signing_secret_current", "doc_signing_secret_rolled"],
  strangerSecret: "someone_elses_signing_secret",
  paying: ({ orderId, email, amount, currency }) => {
    const event = JSON.parse(orderEvent({ orderId: "placeholder" }))
    setOrDrop(event.data, "id", orderId)
    setOrDrop(event.data.attributes, "user_email", email)
    setOrDrop(event.data.attributes, "total", amount)
    setOrDrop(event.data.attributes, "currency", currency)
    return JSON.stringify(event)
  },
  ignored: (eventId) => JSON.stringify({ meta: { event_name: eventId, test_mode: false } }),
  severalSignatures: false
})
