import * as Arr from "effect/Array"
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Redacted from "effect/Redacted"
import { utf8 } from "./bytes.js"
import { importHmacKey } from "./hmac.js"

/** Signing secrets, newest first. Several are active while one is being rolled. */
export type Secrets = Arr.NonEmptyReadonlyArray<Redacted.Redacted<string>>

/** One secret or a list of them, as a provider's `make` accepts. */
export type SecretsInput = Redacted.Redacted<string> | Secrets

/** One secret or a list, as the non-empty list. */
export const secretList = (input: SecretsInput): Secrets => Redacted.isRedacted(input) ? [input] : input

/**
 * A comma-separated list in one config value, each entry kept `Redacted`. Read as a string
 * and redacted at once (not `Config.redacted`, whose error for an unset value says
 * `"<redacted>"` instead of "not set"); no error below ever holds the value.
 */
export const secretsConfig = (name: string): Config.Config<Secrets> =>
  Config.string(name).pipe(
    Config.mapOrFail((value) => {
      const entries = value.split(",").map((entry) => entry.trim()).filter((entry) => entry !== "")
      return Arr.isNonEmptyReadonlyArray(entries)
        ? Either.right(Arr.map(entries, (entry) => Redacted.make(entry)))
        : Either.left(ConfigError.InvalidData([name], "holds no webhook secret"))
    })
  )

/** A config name, or a Config the caller built. */
export const secretsFrom = (source: string | Config.Config<Secrets>): Config.Config<Secrets> =>
  typeof source === "string" ? secretsConfig(source) : source

/** The secret string's UTF-8 bytes, as Stripe and Creem key their HMACs; undefined when empty. */
export const utf8SecretBytes = (secret: string): Uint8Array | undefined => (secret === "" ? undefined : utf8(secret))

/**
 * Imports each secret's HMAC key once, when a provider is made: the import is
 * the slow part of Web Crypto HMAC, and verification then only signs. A secret
 * that gives no key bytes is a configuration defect, reported by position and
 * never by value.
 */
export const importSecretKeys = (
  provider: string,
  secrets: Secrets,
  keyBytes: (secret: string) => Uint8Array | undefined = utf8SecretBytes,
  unusable = "empty"
) =>
  Effect.forEach(secrets, (secret, index) => {
    const bytes = keyBytes(Redacted.value(secret))
    return bytes === undefined
      ? Effect.dieMessage(`${provider}: webhook secret #${index + 1} is ${unusable}`)
      : importHmacKey(bytes)
  })
