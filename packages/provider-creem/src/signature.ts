import { fromHex, type HeaderRejection, malformedHeader, missingHeader, type WebhookRequest } from "@hookgate/core/providers"
import * as Either from "effect/Either"

/** The header Creem signs with (lower-cased, as `WebhookRequest` keeps header names). */
export const SIGNATURE_HEADER = "creem-signature"

/** A parsed `creem-signature`: its one MAC. Creem signs no timestamp. */
export interface Signature {
  readonly signatures: readonly [Uint8Array]
}

/**
 * Parses `creem-signature`: the hex HMAC-SHA256 of the raw body. A repeated
 * header reaches here joined with ", " and is no longer 64 hex digits.
 */
export const parseSignature = (request: WebhookRequest): Either.Either<Signature, HeaderRejection> => {
  const header = request.header(SIGNATURE_HEADER)
  if (header === undefined || header.trim() === "") return missingHeader("no creem-signature header")
  const value = header.trim()
  const mac = value.length === 64 ? fromHex(value) : undefined
  return mac === undefined ? malformedHeader("creem-signature is not 64 hex digits") : Either.right({ signatures: [mac] })
}

/** What Creem signs: the raw body alone. */
export const signedContent = (_: Signature, request: WebhookRequest): ReadonlyArray<Uint8Array> => [request.body]
