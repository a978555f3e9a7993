import {
  SignatureError,
  VerifiedEvent,
  type WebhookProvider,
  type WebhookRequest
} from "@hookgate/core/providers"
import { TEST_SECRET, TEST_SIGNATURE_HEADER, TestProvider } from "@hookgate/testing"
import { Effect, Redacted, Schema } from "effect"
import { createHmac, timingSafeEqual } from "node:crypto"

export const SIM_PROVIDER = "sim"

const Event = Schema.parseJson(Schema.Struct({ id: Schema.String, type: Schema.String, data: Schema.optional(Schema.Unknown) }))

const mac = (body: Uint8Array) => createHmac("sha256", Redacted.value(TEST_SECRET)).update(body).digest()

/** The body signed as the test provider expects, synchronously. */
export const signedHeaders = (body: string) => ({
  "content-type": "application/json",
  [TEST_SIGNATURE_HEADER]: mac(Buffer.from(body)).toString("hex")
})

/**
 * The test provider with its HMAC checked by node:crypto, synchronously: Web
 * Crypto answers on a real promise, whose timing would make the interleaving
 * of simulated requests (and so the table) depend on the machine's load.
 */
export const makeSimProvider = (): Effect.Effect<WebhookProvider> =>
  Effect.map(TestProvider.make({ secret: TEST_SECRET, name: SIM_PROVIDER }), (provider) => ({
    ...provider,
    verify: (request: WebhookRequest) =>
      Effect.gen(function*() {
        const given = Buffer.from(request.header(TEST_SIGNATURE_HEADER) ?? "", "hex")
        const expected = mac(request.body)
        if (given.byteLength !== expected.byteLength || !timingSafeEqual(given, expected)) {
          return yield* new SignatureError({ provider: SIM_PROVIDER, reason: "no_matching_signature", detail: "signature does not match" })
        }
        const event = yield* Schema.decodeUnknown(Event)(request.text).pipe(Effect.orDie)
        return new VerifiedEvent({ provider: SIM_PROVIDER, id: event.id, type: event.type, payload: event })
      })
  }))
