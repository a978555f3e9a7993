import { fromBase64, importHmacKey, utf8 } from "@hookgate/core"
import { Array as Arr, Config, ConfigError, Effect, Either, Redacted } from "effect"

/** Signing secrets, newest first. Several are active while one is being rolled. */
export type Secrets = Arr.NonEmptyReadonlyArray<Redacted.Redacted<string>>

/** One secret or a list of them, as `make` accepts. */
export type SecretsInput = Redacted.Redacted<string> | Secrets

/**
 * How a secret string becomes the HMAC key:
 * - `base64` (the spec): an optional `whsec_` prefix, then the base64 of the key bytes;
 * - `raw`: the string's UTF-8 bytes, as Polar's own SDK uses its secrets.
 */
export type SecretFormat = "base64" | "raw"

export const secretList = (input: SecretsInput): Secrets => Redacted.isRedacted(input) ? [input] : input

/** A comma-separated list in one config value, each entry kept `Redacted`. */
export const secretsConfig = (name: string): Config.Config<Secrets> =>
  Config.redacted(name).pipe(
    Config.mapOrFail((value) => {
      const entries = Redacted.value(value).split(",").map((entry) => entry.trim()).filter((entry) => entry !== "")
      return Arr.isNonEmptyReadonlyArray(entries)
        ? Either.right(Arr.map(entries, (entry) => Redacted.make(entry)))
        : Either.left(ConfigError.InvalidData([name], "holds no webhook secret"))
    })
  )

/** A config name, or a Config the caller built. */
export const secretsFrom = (source: string | Config.Config<Secrets>): Config.Config<Secrets> =>
  typeof source === "string" ? secretsConfig(source) : source

const PREFIX = "whsec_"

/** The key bytes of a secret, or undefined when a `base64` secret is not base64 (or is empty). */
export const secretKeyBytes = (secret: string, format: SecretFormat): Uint8Array | undefined => {
  if (format === "raw") return secret === "" ? undefined : utf8(secret)
  const encoded = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret
  const bytes = /^[A-Za-z0-9+/]+={0,2}$/.test(encoded) ? fromBase64(encoded) : undefined
  return bytes === undefined || bytes.byteLength === 0 ? undefined : bytes
}

/**
 * Imports each secret's HMAC key once, when the provider is made: the import is
 * the slow part of Web Crypto HMAC, and verification then only signs. A secret
 * that does not decode is a configuration defect, reported by position and
 * never by value.
 */
export const importKeys = (provider: string, secrets: Secrets, format: SecretFormat) =>
  Effect.forEach(secrets, (secret, index) => {
    const bytes = secretKeyBytes(Redacted.value(secret), format)
    return bytes === undefined
      ? Effect.dieMessage(
        `${provider}: webhook secret #${index + 1} is ${format === "raw" ? "empty" : "not whsec_<base64> (or is empty)"}`
      )
      : importHmacKey(bytes)
  })
