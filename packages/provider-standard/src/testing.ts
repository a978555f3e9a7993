import { hmacSha256, importHmacKey, toBase64, utf8, WebhookRequest } from "@hookgate/core/providers"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { type SecretFormat, secretKeyBytes } from "./secret-format.js"
import { signedPrefix } from "./signature.js"

/**
 * @hookgate/provider-standard/testing: sign messages as a Standard Webhooks
 * sender does, for tests and demos.
 */

type Secret = Redacted.Redacted<string> | string
const reveal = (secret: Secret) => (typeof secret === "string" ? secret : Redacted.value(secret))
const bytesOf = (body: string | Uint8Array) => (typeof body === "string" ? utf8(body) : body)

/** A fresh `whsec_<base64>` secret of 32 random bytes. */
export const generateSecret = (): string => `whsec_${toBase64(crypto.getRandomValues(new Uint8Array(32)))}`

/** A message to sign: the id, the timestamp and the raw body. */
export interface Message {
  readonly id: string
  /** Unix seconds. */
  readonly timestamp: number
  readonly body: string | Uint8Array
}

/** One `v1,<base64>` entry: HMAC-SHA256 of `${id}.${timestamp}.${body}`. */
export const standardSignature = (secret: Secret, message: Message, format: SecretFormat = "base64") =>
  Effect.gen(function*() {
    const bytes = secretKeyBytes(reveal(secret), format)
    if (bytes === undefined) return yield* Effect.dieMessage("the secret does not decode")
    const mac = yield* hmacSha256(yield* importHmacKey(bytes), signedPrefix(message.id, message.timestamp), bytesOf(message.body))
    return `v1,${toBase64(mac)}`
  })

/** Options of `signStandardRequest`. */
export interface SignOptions {
  /** Default `msg_` and a random suffix. */
  readonly id?: string
  /** Unix seconds; default now on Effect's Clock. */
  readonly timestamp?: number
  /** `webhook` (default) or `svix` header names. */
  readonly headers?: "webhook" | "svix"
  readonly secretFormat?: SecretFormat
  /** More secrets to add a `v1` entry for (a rolled secret still active). */
  readonly alsoSignWith?: ReadonlyArray<Secret>
}

/** A request carrying `body` as a Standard Webhooks sender would send it. */
export const signStandardRequest = (secret: Secret, body: string | Uint8Array, options: SignOptions = {}) =>
  Effect.gen(function*() {
    const id = options.id ?? `msg_${crypto.randomUUID().replaceAll("-", "")}`
    const timestamp = options.timestamp ?? Math.floor((yield* Clock.currentTimeMillis) / 1000)
    const signatures = yield* Effect.forEach([secret, ...(options.alsoSignWith ?? [])], (s) =>
      standardSignature(s, { id, timestamp, body }, options.secretFormat))
    const prefix = options.headers ?? "webhook"
    return WebhookRequest.fromParts(bytesOf(body), {
      "content-type": "application/json",
      [`${prefix}-id`]: id,
      [`${prefix}-timestamp`]: String(timestamp),
      [`${prefix}-signature`]: signatures.join(" ")
    })
  })
