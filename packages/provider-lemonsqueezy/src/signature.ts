import { fromHex, type HeaderRejection, malformedHeader, missingHeader, type WebhookRequest } from "@hookgate/core/providers"
import * as Either from "effect/Either"

/** The header Lemon Squeezy signs with (lower-cased, as `WebhookRequest` keeps header names). */
export const SIGNATURE_HEADER = "x-signature"

/** A parsed `X-Signature`: its one MAC. Lemon Squeezy signs no timestamp. */
export interface Signature {
  readonly signatures: readonly [Uint8Array]
}

const HEX_MAC = /^[0-9a-fA-F]{64}$/

/**
 * Parses `X-Signature`: the hex HMAC-SHA256 of the raw body. A header sent
 * twice reaches here joined with ", " and is no longer 64 hex digits.
 */
export const parseSignature = (request: WebhookRequest): Either.Either<Signature, HeaderRejection> => {
  const value = request.header(SIGNATURE_HEADER)?.trim() ?? ""
  if (value === "") return missingHeader("no X-Signature header")
  if (!HEX_MAC.test(value)) return malformedHeader("X-Signature is not 64 hex digits")
  return Either.right({ signatures: [fromHex(value)!] })
}

/** What Lemon Squeezy signs: the raw body alone. */
export const signedContent = (_: Signature, request: WebhookRequest): ReadonlyArray<Uint8Array> => [request.body]
