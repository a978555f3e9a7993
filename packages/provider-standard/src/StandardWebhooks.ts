import {
  cannotReconcile,
  DEFAULT_TOLERANCE as KIT_TOLERANCE,
  type Envelope,
  type MalformedPayload,
  ProviderKit,
  Providers,
  type Reconciliation,
  type Secrets,
  secretsFrom,
  type SecretsInput,
  type VerifiedEvent,
  type WebhookProvider
} from "@hookgate/core/providers"
import type { Fulfilment } from "@hookgate/core"
import type * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { type SecretFormat, secretKeyFormat } from "./secret-format.js"
import { parseSignature, signedContent } from "./signature.js"

export { HEADER_PREFIXES, parseSignature, type Signature, signedContent } from "./signature.js"
export type { SecretFormat } from "./secret-format.js"

/** The spec's recommended timestamp tolerance, and the `standardwebhooks` package's: five minutes. */
export const DEFAULT_TOLERANCE: Duration.Duration = KIT_TOLERANCE

/** The options of `make` and `layer`. */
export interface Options {
  /** The `:provider` path segment and order key prefix: `polar`, `lemon`, … */
  readonly name: string
  /** Signing secrets (`whsec_<base64>`), newest first; list two while rolling one. */
  readonly secrets: SecretsInput
  /** `base64` (default, the spec) or `raw` (the string's UTF-8 bytes; Polar). */
  readonly secretFormat?: SecretFormat
  /** How far `webhook-timestamp` may lie from now, in the past or the future. Default 5 minutes. */
  readonly tolerance?: Duration.DurationInput
  /** The event type, from the parsed payload. Default: its `type` field (Polar, Svix, Resend). */
  readonly eventType?: (payload: unknown) => string | undefined
  /** Maps a verified event to the order it pays for; `None` for every event that needs no email. Build it with `fulfilOn`. */
  readonly fulfilment: (event: VerifiedEvent) => Effect.Effect<Option.Option<Fulfilment>, MalformedPayload>
  /** A listing of the provider's own API, if it has one; default: the provider cannot reconcile (the spec has none). */
  readonly reconcile?: Reconciliation
}

/** The options of `layerConfig`: as `Options`, with the secrets read from Config. */
export interface ConfigOptions extends Omit<Options, "secrets"> {
  /** Where the secrets come from: a config name holding a comma-separated list, or a Config of your own. */
  readonly secrets: string | Config.Config<Secrets>
}

/** The envelope of an `eventType` option: the event type it reads; the event id is `webhook-id`, from the signature. */
const envelopeOf = (eventType: (payload: unknown) => string | undefined): Schema.Schema<Envelope, unknown> =>
  Schema.transformOrFail(Schema.Unknown, Schema.Struct({ type: Schema.String }), {
    strict: true,
    decode: (payload, _, ast) => {
      const type = eventType(payload)
      return type === undefined
        ? ParseResult.fail(new ParseResult.Type(ast, payload, "no event type in the payload"))
        : ParseResult.succeed({ type })
    },
    encode: (envelope, _, ast) => ParseResult.fail(new ParseResult.Forbidden(ast, envelope, "envelopes are only decoded"))
  })

/** The default envelope: a non-empty `type` field (Polar, Svix, Resend); a plain struct, which the kit checks cheaply. */
const TypeField = Schema.Struct({ type: Schema.NonEmptyString })

/**
 * A Standard Webhooks provider, each secret's key imported once. It checks the
 * `v1` signatures over `${webhook-id}.${webhook-timestamp}.` and the raw body,
 * then the timestamp window, then reads the event type. The event id is
 * `webhook-id`, which the spec keeps stable across retries of one message.
 */
export const make = (options: Options): Effect.Effect<WebhookProvider> => {
  const common = {
    name: options.name,
    secrets: options.secrets,
    secretFormat: secretKeyFormat(options.secretFormat ?? "base64"),
    parseSignature,
    signedContent,
    tolerance: options.tolerance ?? DEFAULT_TOLERANCE,
    fulfilment: options.fulfilment,
    reconcile: options.reconcile ?? NO_LIST_API
  }
  return options.eventType === undefined
    ? ProviderKit.make({ ...common, envelope: TypeField })
    : ProviderKit.make({ ...common, envelope: envelopeOf(options.eventType) })
}

/** The spec defines delivery only: there is no API to list what was sent, so reconciliation skips the provider. */
const NO_LIST_API = cannotReconcile("Standard Webhooks defines no API to list past messages")

/** A Standard Webhooks provider, for `Providers.layer(…)`. */
export const layer = (options: Options): Layer.Layer<never, never, Providers> => Providers.register(make(options))

/** A Standard Webhooks provider with its secrets read from Config as `Redacted` values, for `Providers.layer(…)`. */
export const layerConfig = (options: ConfigOptions): Layer.Layer<never, ConfigError.ConfigError, Providers> =>
  Providers.register(Effect.flatMap(secretsFrom(options.secrets), (secrets) => make({ ...options, secrets })))
