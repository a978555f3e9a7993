import { anyKeyMatches, type HmacKey, fromHex, SignatureError } from "@hookgate/core"
import { Either } from "effect"

/** The header Creem signs with (lower-cased, as `WebhookRequest` keeps header names). */
export const CREEM_SIGNATURE_HEADER = "creem-signature"

/**
 * Parses `creem-signature`: the hex HMAC-SHA256 of the raw body. A repeated
 * header reaches here joined with ", " and is no longer 64 hex digits.
 */
export const parseCreemSignature = (
  provider: string,
  header: string | undefined
): Either.Either<Uint8Array, SignatureError> => {
  if (header === undefined || header.trim() === "") {
    return Either.left(new SignatureError({ provider, reason: "missing_header", detail: "no creem-signature header" }))
  }
  const value = header.trim()
  const mac = value.length === 64 ? fromHex(value) : undefined
  return mac === undefined
    ? Either.left(new SignatureError({ provider, reason: "malformed_header", detail: "creem-signature is not 64 hex digits" }))
    : Either.right(mac)
}

/**
 * True when the signature is the HMAC of the body under one of the keys, tried
 * in order (newest first); each comparison is constant-time.
 */
export const matchesAnyKey = (keys: ReadonlyArray<HmacKey>, signature: Uint8Array, body: Uint8Array) =>
  anyKeyMatches(keys, [body], [signature])
