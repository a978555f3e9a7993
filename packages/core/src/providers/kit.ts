import type * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Layer from "effect/Layer"
import type * as Schema from "effect/Schema"
import { Providers, type WebhookProvider } from "./providers.js"
import { type Secrets, secretsFrom, type SecretsInput } from "./secrets.js"
import type { WebhookRequest } from "./webhook.js"

/** What a signature header parses to: the given MACs, and what else the scheme signs. */
export interface SignatureParts {
  /** Every signature the request carries (decoded bytes); any one matching under any key verifies. */
  readonly signatures: ReadonlyArray<Uint8Array>
  /** The signed timestamp in unix seconds, when the scheme signs one; then the window is enforced. */
  readonly timestamp?: number
  /** The message id, when the scheme signs one (Standard Webhooks' `webhook-id`); it is then the event id. */
  readonly id?: string
}

/** Why a header was refused before any MAC was computed. */
export interface HeaderRejection {
  readonly reason: "missing_header" | "malformed_header"
  readonly detail: string
}

/** A header that is absent or blank. */
export const missingHeader = (detail: string): Either.Either<never, HeaderRejection> =>
  Either.left({ reason: "missing_header", detail })

/** A header that is present but does not parse. */
export const malformedHeader = (detail: string): Either.Either<never, HeaderRejection> =>
  Either.left({ reason: "malformed_header", detail })

/** What the envelope schema must yield: the event type, and its id unless the signature carries one. */
export interface Envelope {
  readonly id?: string
  readonly type: string
}

/** How a secret string becomes key bytes; `unusable` names a secret that gives none (never its value). */
export interface SecretKeyFormat {
  readonly bytes: (secret: string) => Uint8Array | undefined
  readonly unusable: string
}

/** The parts of a provider plugin; `ProviderKit.make` owns the order of the checks. */
export interface ProviderSpec<P extends SignatureParts, E extends Envelope, I> {
  /** The `:provider` path segment and order key prefix. */
  readonly name: string
  /** Signing secrets, newest first; several while one is being rolled. */
  readonly secrets: SecretsInput
  /** Default: the secret string's UTF-8 bytes, as Stripe and Creem key their HMACs. */
  readonly secretFormat?: SecretKeyFormat
  /** Headers to signature parts, or why not. Pure and strict: a repeated header must not half-parse. */
  readonly parseSignature: (request: WebhookRequest) => Either.Either<P, HeaderRejection>
  /** The bytes the provider signs, e.g. `[utf8(`${t}.`), request.body]`; never re-serialised JSON. */
  readonly signedContent: (parts: P, request: WebhookRequest) => ReadonlyArray<Uint8Array>
  /** How far a signed timestamp may lie from now, either way. Default 5 minutes; unused when none is signed. */
  readonly tolerance?: Duration.DurationInput
  /** Decodes the parsed JSON body to the event's type (and id). Name only those fields. */
  readonly envelope: Schema.Schema<E, I>
  /** Maps a verified event to the order it pays for (see `fulfilOn`). */
  readonly fulfilment: WebhookProvider["fulfilment"]
  /** For an expensive fulfilment: the order key an event would make, so `receive` can hand it the stored order's (see `WebhookProvider`). */
  readonly orderKeyOf?: WebhookProvider["orderKeyOf"]
  /** The provider's listing of paid objects, or its declaration that it has none (see `WebhookProvider`). */
  readonly reconcile?: WebhookProvider["reconcile"]
}

/** The timestamp window when a provider's options name none: five minutes, as Stripe and the Standard Webhooks spec use. */
export const DEFAULT_TOLERANCE: Duration.Duration = Duration.minutes(5)

/**
 * A provider package's `layerConfig` options: its `make` options with the
 * secrets given as a config name holding a comma-separated list, or a Config.
 */
export type ConfigOptionsOf<O extends { readonly secrets: SecretsInput }> = Omit<O, "secrets"> & {
  readonly secrets?: string | Config.Config<Secrets>
}

/**
 * What a provider package's `layerConfig` returns: the provider made from
 * `options`, its secrets read from Config (`options.secrets`, else the config
 * name `defaultSecrets`) as `Redacted` values, registered for `Providers.layer`.
 */
export const registerFromConfig = <O extends { readonly secrets: SecretsInput }>(
  make: (options: O) => Effect.Effect<WebhookProvider>,
  options: ConfigOptionsOf<O>,
  defaultSecrets: string
): Layer.Layer<never, ConfigError.ConfigError, Providers> =>
  Providers.register(
    Effect.flatMap(secretsFrom(options.secrets ?? defaultSecrets), (secrets) => make({ ...options, secrets } as unknown as O))
  )
