import {
  checkTimestamp,
  decoderFor,
  importSecretKeys,
  parseJsonBody,
  Providers,
  secretList,
  type Secrets,
  secretsFrom,
  type SecretsInput,
  SignatureError,
  VerifiedEvent,
  type WebhookProvider
} from "@hookgate/core/providers"
import { type Config, type ConfigError, Duration, Effect, Either, type Layer } from "effect"
import { StripeEventEnvelope } from "./events.js"
import { stripeFulfilment } from "./fulfilment.js"
import { matchesAnyKey, parseStripeSignature, STRIPE_SIGNATURE_HEADER } from "./signature.js"

/** Stripe's own default: five minutes. */
export const DEFAULT_TOLERANCE: Duration.Duration = Duration.minutes(5)

export interface StripeOptions {
  /** Endpoint signing secrets (`whsec_…`), newest first; list two while rolling one. */
  readonly secrets: SecretsInput
  /** How far a signed timestamp may lie from now, in the past or the future. Default 5 minutes. */
  readonly tolerance?: Duration.DurationInput
  /** The `:provider` path segment and order key prefix. Default `stripe`. */
  readonly name?: string
}

/**
 * The Stripe provider. Each secret's key is imported here, once; `verify`
 * checks the `Stripe-Signature` header against the raw body bytes, then the
 * timestamp, then reads the event's id and type.
 */
export const make = (options: StripeOptions): Effect.Effect<WebhookProvider> =>
  Effect.gen(function*() {
    const name = options.name ?? "stripe"
    const toleranceSeconds = Duration.toSeconds(Duration.decode(options.tolerance ?? DEFAULT_TOLERANCE))
    const keys = yield* importSecretKeys(name, secretList(options.secrets))
    const decodeEnvelope = decoderFor(name, "event", StripeEventEnvelope)
    const noMatch = () =>
      new SignatureError({
        provider: name,
        reason: "no_matching_signature",
        detail: "no v1 signature matches the body under any configured secret"
      })

    const verify: WebhookProvider["verify"] = (request) =>
      Effect.gen(function*() {
        const signature = parseStripeSignature(name, request.header(STRIPE_SIGNATURE_HEADER))
        if (Either.isLeft(signature)) return yield* signature.left
        if (!(yield* matchesAnyKey(keys, signature.right, request.body))) return yield* noMatch()
        // Checked after the signature, so a timestamp error always means a genuine but stale
        // (or clock-skewed) delivery, and an unsigned request learns nothing about the window.
        yield* checkTimestamp(name, signature.right.timestamp, toleranceSeconds)
        const payload = yield* parseJsonBody(name, request.body)
        const envelope = yield* decodeEnvelope(payload)
        return new VerifiedEvent({ provider: name, id: envelope.id, type: envelope.type, payload })
      })

    return { name, verify, fulfilment: stripeFulfilment(name) }
  })

/** Mounts the Stripe provider in the `Providers` registry. */
export const layer = (options: StripeOptions): Layer.Layer<never, never, Providers> => Providers.register(make(options))

export interface StripeConfigOptions extends Omit<StripeOptions, "secrets"> {
  /**
   * Where the secrets come from: a config name holding a comma-separated list
   * (default `STRIPE_WEBHOOK_SECRET`), or a Config of your own.
   */
  readonly secrets?: string | Config.Config<Secrets>
}

/** Mounts the Stripe provider with its secrets read from Config as `Redacted` values. */
export const layerConfig = (
  options: StripeConfigOptions = {}
): Layer.Layer<never, ConfigError.ConfigError, Providers> =>
  Providers.register(
    Effect.flatMap(secretsFrom(options.secrets ?? "STRIPE_WEBHOOK_SECRET"), (secrets) => make({ ...options, secrets }))
  )
