import { providerConformance } from "@hookgate/testing/conformance"
import { utf8, WebhookRequest } from "@hookgate/core/providers"
import { signTestRequest, TestProvider } from "@hookgate/testing"
import { Effect, Redacted } from "effect"

// The test provider runs the suite every plugin runs, so the suite is itself exercised on core.
const event = (eventId: string, type: string, data: Record<string, unknown>) => JSON.stringify({ id: eventId, type, data })

providerConformance({
  name: "test",
  make: ({ secrets }) => TestProvider.make({ secret: secrets }),
  sign: ({ body, secrets }) => signTestRequest(Redacted.make(secrets[0]), body),
  secrets: ["whsec_conformance_secret", "whsec_conformance_rolled"],
  strangerSecret: "whsec_a_stranger",
  paying: ({ eventId, ...data }) => event(eventId, "order.paid", data),
  ignored: (eventId) => event(eventId, "order.refunded", {}),
  severalSignatures: false,
  cases: [
    { name: "an empty header", request: Effect.succeed(WebhookRequest.fromParts(utf8("{}"), { "x-test-signature": "" })), expected: { refused: "missing_header" } },
    {
      name: "a signature that is not hex",
      request: Effect.succeed(WebhookRequest.fromParts(utf8("{}"), { "x-test-signature": "zz".repeat(32) })),
      expected: { refused: "malformed_header" }
    }
  ]
})
