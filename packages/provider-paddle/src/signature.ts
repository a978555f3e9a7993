import { fromHex, type HeaderRejection, malformedHeader, missingHeader, utf8, type WebhookRequest } from "@hookgate/core/providers"
import * as Either from "effect/Either"

/** The header Paddle signs with (lower-cased, as `WebhookRequest` keeps header names). */
export const SIGNATURE_HEADER = "paddle-signature"

/** A parsed `Paddle-Signature`: the signed timestamp and every `h1` signature. */
export interface Signature {
  readonly timestamp: number
  readonly signatures: ReadonlyArray<Uint8Array>
}

const TIMESTAMP = /^\d{1,12}$/
const HEX_MAC = /^[0-9a-fA-F]{64}$/

/**
 * Parses `ts=<unix s>;h1=<hex>[;h1=<hex>…]`: one `ts`, at least one `h1` (one per
 * active secret while a secret rotates); other keys are skipped. A repeated
 * header reaches here joined with ", " and no longer parses.
 */
export const parseSignature = (request: WebhookRequest): Either.Either<Signature, HeaderRejection> => {
  const header = request.header(SIGNATURE_HEADER)?.trim() ?? ""
  if (header === "") return missingHeader("no Paddle-Signature header")
  let timestamp: number | undefined
  const signatures: Array<Uint8Array> = []
  for (const part of header.split(";")) {
    const at = part.indexOf("=")
    if (at < 0) return malformedHeader("a part is not key=value")
    const key = part.slice(0, at)
    const value = part.slice(at + 1)
    if (key === "ts") {
      if (timestamp !== undefined) return malformedHeader("more than one ts=")
      if (!TIMESTAMP.test(value)) return malformedHeader("ts= is not a unix time in seconds")
      timestamp = Number(value)
    } else if (key === "h1") {
      if (!HEX_MAC.test(value)) return malformedHeader("an h1 signature is not 64 hex digits")
      signatures.push(fromHex(value)!)
    }
  }
  if (timestamp === undefined) return malformedHeader("no ts= timestamp")
  if (signatures.length === 0) return malformedHeader("no h1 signature")
  return Either.right({ timestamp, signatures })
}

/** What Paddle signs: `${ts}:` followed by the raw body. */
export const signedContent = (signature: Signature, request: WebhookRequest): ReadonlyArray<Uint8Array> => [
  utf8(`${signature.timestamp}:`),
  request.body
]
