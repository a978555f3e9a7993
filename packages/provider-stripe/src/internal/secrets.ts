import { importHmacKey } from "@hookgate/core"
import { Array as Arr, Config, ConfigError, Effect, Either, Redacted } from "effect"

/** Signing secrets, newest first. Several are active while one is being rolled. */
export type Secrets = Arr.NonEmptyReadonlyArray<Redacted.Redacted<string>>

/** One secret or a list of them, as `make` accepts. */
export type SecretsInput = Redacted.Redacted<string> | Secrets

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

/**
 * Imports each secret's HMAC key once, when the provider is made: the import is
 * the slow part of Web Crypto HMAC, and verification then only signs. The key is
 * the secret string's UTF-8 bytes, as Stripe signs with it. An empty secret is a
 * configuration defect, reported by position and never by value.
 */
export const importKeys = (provider: string, secrets: Secrets) =>
  Effect.forEach(secrets, (secret, index) =>
    Redacted.value(secret) === ""
      ? Effect.dieMessage(`${provider}: webhook secret #${index + 1} is empty`)
      : importHmacKey(Redacted.value(secret)))
