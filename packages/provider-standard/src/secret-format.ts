import { fromBase64, type SecretKeyFormat, utf8 } from "@hookgate/core/providers"

/**
 * How a secret string becomes the HMAC key:
 * - `base64` (the spec): an optional `whsec_` prefix, then the base64 of the key bytes;
 * - `raw`: the string's UTF-8 bytes, as Polar's own SDK uses its secrets.
 */
export type SecretFormat = "base64" | "raw"

const PREFIX = "whsec_"

/** The key bytes of a secret, or undefined when a `base64` secret is not base64 (or is empty). */
export const secretKeyBytes = (secret: string, format: SecretFormat): Uint8Array | undefined => {
  if (format === "raw") return secret === "" ? undefined : utf8(secret)
  const encoded = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret
  const bytes = /^[A-Za-z0-9+/]+={0,2}$/.test(encoded) ? fromBase64(encoded) : undefined
  return bytes === undefined || bytes.byteLength === 0 ? undefined : bytes
}

/** The kit's form of a format: how a secret becomes key bytes, and how an unusable one is named. */
export const secretKeyFormat = (format: SecretFormat): SecretKeyFormat => ({
  bytes: (secret) => secretKeyBytes(secret, format),
  unusable: format === "raw" ? "empty" : "not whsec_<base64> (or is empty)"
})
