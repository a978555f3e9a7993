import { type Fulfilment } from "@hookgate/core"
import {
  checkTimestamp,
  MalformedPayload,
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
import { type Config, type ConfigError, Duration, Effect, Either, type Layer, type Option } from "effect"
import { importKeys, type SecretFormat } from "./secret-format.js"
import { matchesAnyKey, parseStandardSignature } from "./signature.js"

/** The spec's recommendation, and the `standardwebhooks` package's: five minutes. */
export const DEFAULT_TOLERANCE: Duration.Duration = Duration.minutes(5)

export interface StandardWebhooksOptions {
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
  /** Maps a verified event to the order it pays for; `None` for every event that needs no email. See `fulfilOn`. */
  readonly fulfilment: (event: VerifiedEvent) => Effect.Effect<Option.Option<Fulfilment>, MalformedPayload>
}

const typeField = (payload: unknown): string | undefined => {
  if (typeof payload !== "object" || payload === null) return undefined
  const type = (payload as { readonly type?: unknown }).type
  return typeof type === "string" && type !== "" ? type : undefined
}

/**
 * A Standard Webhooks provider. Each secret's key is imported here, once;
 * `verify` checks the signature over `${webhook-id}.${webhook-timestamp}.${raw body}`,
 * then the timestamp, then reads the event type. The event id is `webhook-id`,
 * which the spec keeps stable across retries of one message.
 */
export const make = (options: StandardWebhooksOptions): Effect.Effect<WebhookProvider> =>
  Effect.gen(function*() {
    const name = options.name
    const toleranceSeconds = Duration.toSeconds(Duration.decode(options.tolerance ?? DEFAULT_TOLERANCE))
    const keys = yield* importKeys(name, secretList(options.secrets), options.secretFormat ?? "base64")
    const eventType = options.eventType ?? typeField

    const verify: WebhookProvider["verify"] = (request) =>
      Effect.gen(function*() {
        const signature = parseStandardSignature(name, request)
        if (Either.isLeft(signature)) return yield* signature.left
        if (!(yield* matchesAnyKey(keys, signature.right, request.body))) {
          return yield* new SignatureError({
            provider: name,
            reason: "no_matching_signature",
            detail: "no v1 signature matches the message under any configured secret"
          })
        }
        // After the signature: a timestamp error always means a genuine but stale (or skewed) delivery.
        yield* checkTimestamp(name, signature.right.timestamp, toleranceSeconds)
        const payload = yield* parseJsonBody(name, request.body)
        const type = eventType(payload)
        if (type === undefined) return yield* new MalformedPayload({ provider: name, detail: "no event type in the payload" })
        return new VerifiedEvent({ provider: name, id: signature.right.id, type, payload })
      })

    return { name, verify, fulfilment: options.fulfilment }
  })

/** Mounts a Standard Webhooks provider in the `Providers` registry. */
export const layer = (options: StandardWebhooksOptions): Layer.Layer<never, never, Providers> =>
  Providers.register(make(options))

export interface StandardWebhooksConfigOptions extends Omit<StandardWebhooksOptions, "secrets"> {
  /** Where the secrets come from: a config name holding a comma-separated list, or a Config of your own. */
  readonly secrets: string | Config.Config<Secrets>
}

/** Mounts a Standard Webhooks provider with its secrets read from Config as `Redacted` values. */
export const layerConfig = (
  options: StandardWebhooksConfigOptions
): Layer.Layer<never, ConfigError.ConfigError, Providers> =>
  Providers.register(Effect.flatMap(secretsFrom(options.secrets), (secrets) => make({ ...options, secrets })))
