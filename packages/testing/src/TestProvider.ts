/**
 * The test provider: `x-test-signature` is the hex HMAC-SHA256 of the raw body
 * (`signTestRequest` signs one); `order.paid` events are paying, others ignored.
 */
import * as Either from "effect/Either"
import { fromHex, malformedHeader, missingHeader, ProviderKit } from "@hookgate/core/providers"
import type { Reconciliation, SecretsInput } from "@hookgate/core/providers"
import { TEST_SIGNATURE_HEADER, TestEvent, testFulfilment } from "./test-provider.js"

/** The test provider, its key imported once; one secret or several (newest first). */
export const make = (
  options: { readonly secret: SecretsInput; readonly name?: string; readonly reconcile?: Reconciliation }
) =>
  ProviderKit.make({
    name: options.name ?? "test",
    ...(options.reconcile === undefined ? {} : { reconcile: options.reconcile }),
    secrets: options.secret,
    parseSignature: (request) => {
      const header = request.header(TEST_SIGNATURE_HEADER)
      if (header === undefined || header.trim() === "") return missingHeader(`no ${TEST_SIGNATURE_HEADER} header`)
      const given = fromHex(header.trim())
      return given === undefined || given.byteLength !== 32
        ? malformedHeader(`${TEST_SIGNATURE_HEADER} is not a hex SHA-256 MAC`)
        : Either.right({ signatures: [given] })
    },
    signedContent: (_, request) => [request.body],
    envelope: TestEvent,
    fulfilment: testFulfilment
  })
