import { fromHex, type HeaderRejection, malformedHeader, missingHeader, utf8, type WebhookRequest } from "@hookgate/core/providers"
import * as Either from "effect/Either"

/** The header Stripe signs with (lower-cased, as `WebhookRequest` keeps header names). */
export const SIGNATURE_HEADER = "stripe-signature"

/** A parsed `Stripe-Signature`: the signed timestamp and every `v1` signature. */
export interface Signature {
  readonly timestamp: number
  readonly signatures: ReadonlyArray<Uint8Array>
}

const TIMESTAMP = /^\d{1,12}$/
const MAC_HEX_LENGTH = 64

/**
 * Parses `t=<unix s>,v1=<hex>[,v1=<hex>…][,v0=<hex>]`. Only `v1` counts; `v0`
 * (a test-mode decoy) and unknown schemes are skipped. A repeated header reaches
 * here joined with ", " and shows up as a second `t`, which is refused.
 */
export const parseSignature = (request: WebhookRequest): Either.Either<Signature, HeaderRejection> => {
  const header = request.header(SIGNATURE_HEADER)
  if (header === undefined || header.trim() === "") return missingHeader("no Stripe-Signature header")
  let timestamp: number | undefined
  const signatures: Array<Uint8Array> = []
  for (const element of header.split(",")) {
    const at = element.indexOf("=")
    if (at < 0) return malformedHeader("an element is not key=value")
    const key = element.slice(0, at).trim()
    const value = element.slice(at + 1).trim()
    if (key === "t") {
      if (timestamp !== undefined) return malformedHeader("more than one t= timestamp")
      if (!TIMESTAMP.test(value)) return malformedHeader("t= is not a unix time in seconds")
      timestamp = Number(value)
    } else if (key === "v1") {
      const mac = value.length === MAC_HEX_LENGTH ? fromHex(value) : undefined
      if (mac === undefined) return malformedHeader("a v1 signature is not 64 hex digits")
      signatures.push(mac)
    }
  }
  if (timestamp === undefined) return malformedHeader("no t= timestamp")
  if (signatures.length === 0) return malformedHeader("no v1 signature")
  return Either.right({ timestamp, signatures })
}

/** What Stripe signs: `${t}.` followed by the raw body. */
export const signedContent = (signature: Signature, request: WebhookRequest): ReadonlyArray<Uint8Array> => [
  utf8(`${signature.timestamp}.`),
  request.body
]
