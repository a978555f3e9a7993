import { fromBase64, importSecretKeys, type Secrets, utf8 } from "@hookgate/core/providers"

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

/** Each secret's key, imported once; a secret that does not decode is reported by position, never by value. */
export const importKeys = (provider: string, secrets: Secrets, format: SecretFormat) =>
  importSecretKeys(
    provider,
    secrets,
    (secret) => secretKeyBytes(secret, format),
    format === "raw" ? "empty" : "not whsec_<base64> (or is empty)"
  )
