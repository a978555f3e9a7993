import {
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
import { type Config, type ConfigError, Effect, Either, type Layer } from "effect"
import { CreemEventEnvelope } from "./events.js"
import { creemFulfilment } from "./fulfilment.js"
import { CREEM_SIGNATURE_HEADER, matchesAnyKey, parseCreemSignature } from "./signature.js"

export interface CreemOptions {
  /** Webhook secrets exactly as the dashboard shows them (`whsec_…`), newest first. */
  readonly secrets: SecretsInput
  /** The `:provider` path segment and order key prefix. Default `creem`. */
  readonly name?: string
}

/**
 * The Creem provider. Each secret's key is imported here, once; `verify`
 * checks `creem-signature` against the raw body bytes, then reads the event's
 * id and type.
 *
 * Creem signs no timestamp, so there is no replay window to enforce: a captured
 * request verifies forever. What makes a replay harmless is downstream: the
 * event receipt (provider, event id) and the order key `creem:<order id>`, under
 * which a second delivery is answered `duplicate` and sends nothing.
 */
export const make = (options: CreemOptions): Effect.Effect<WebhookProvider> =>
  Effect.gen(function*() {
    const name = options.name ?? "creem"
    const keys = yield* importSecretKeys(name, secretList(options.secrets))
    const decodeEnvelope = decoderFor(name, "event", CreemEventEnvelope)

    const verify: WebhookProvider["verify"] = (request) =>
      Effect.gen(function*() {
        const signature = parseCreemSignature(name, request.header(CREEM_SIGNATURE_HEADER))
        if (Either.isLeft(signature)) return yield* signature.left
        if (!(yield* matchesAnyKey(keys, signature.right, request.body))) {
          return yield* new SignatureError({
            provider: name,
            reason: "no_matching_signature",
            detail: "creem-signature does not match the body under any configured secret"
          })
        }
        const payload = yield* parseJsonBody(name, request.body)
        const envelope = yield* decodeEnvelope(payload)
        return new VerifiedEvent({ provider: name, id: envelope.id, type: envelope.eventType, payload })
      })

    return { name, verify, fulfilment: creemFulfilment(name) }
  })

/** Mounts the Creem provider in the `Providers` registry. */
export const layer = (options: CreemOptions): Layer.Layer<never, never, Providers> => Providers.register(make(options))

export interface CreemConfigOptions extends Omit<CreemOptions, "secrets"> {
  /**
   * Where the secrets come from: a config name holding a comma-separated list
   * (default `CREEM_WEBHOOK_SECRET`), or a Config of your own.
   */
  readonly secrets?: string | Config.Config<Secrets>
}

/** Mounts the Creem provider with its secrets read from Config as `Redacted` values. */
export const layerConfig = (
  options: CreemConfigOptions = {}
): Layer.Layer<never, ConfigError.ConfigError, Providers> =>
  Providers.register(
    Effect.flatMap(secretsFrom(options.secrets ?? "CREEM_WEBHOOK_SECRET"), (secrets) => make({ ...options, secrets }))
  )
