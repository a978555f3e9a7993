import { anyKeyMatches, type HmacKey, fromHex, SignatureError, utf8 } from "@hookgate/core"
import { Either } from "effect"

/** The header Stripe signs with (lower-cased, as `WebhookRequest` keeps header names). */
export const STRIPE_SIGNATURE_HEADER = "stripe-signature"

/** A parsed `Stripe-Signature`: the signed timestamp and every `v1` signature. */
export interface StripeSignature {
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
export const parseStripeSignature = (
  provider: string,
  header: string | undefined
): Either.Either<StripeSignature, SignatureError> => {
  const malformed = (detail: string) => Either.left(new SignatureError({ provider, reason: "malformed_header", detail }))
  if (header === undefined || header.trim() === "") {
    return Either.left(new SignatureError({ provider, reason: "missing_header", detail: "no Stripe-Signature header" }))
  }
  let timestamp: number | undefined
  const signatures: Array<Uint8Array> = []
  for (const element of header.split(",")) {
    const at = element.indexOf("=")
    if (at < 0) return malformed("an element is not key=value")
    const key = element.slice(0, at).trim()
    const value = element.slice(at + 1).trim()
    if (key === "t") {
      if (timestamp !== undefined) return malformed("more than one t= timestamp")
      if (!TIMESTAMP.test(value)) return malformed("t= is not a unix time in seconds")
      timestamp = Number(value)
    } else if (key === "v1") {
      const mac = value.length === MAC_HEX_LENGTH ? fromHex(value) : undefined
      if (mac === undefined) return malformed("a v1 signature is not 64 hex digits")
      signatures.push(mac)
    }
  }
  if (timestamp === undefined) return malformed("no t= timestamp")
  if (signatures.length === 0) return malformed("no v1 signature")
  return Either.right({ timestamp, signatures })
}

/**
 * True when one of the header's `v1` signatures is the HMAC of `${t}.${body}`
 * under one of the keys. Keys are tried in order (newest first), so the usual
 * request costs one HMAC; each comparison is constant-time.
 */
export const matchesAnyKey = (keys: ReadonlyArray<HmacKey>, signature: StripeSignature, body: Uint8Array) =>
  anyKeyMatches(keys, [utf8(`${signature.timestamp}.`), body], signature.signatures)
