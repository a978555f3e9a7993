import { hmacSha256, importHmacKey, toHex, utf8, WebhookRequest } from "@hookgate/core/providers"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { SIGNATURE_HEADER } from "../signature.js"

type Secret = Redacted.Redacted<string> | string
const reveal = (secret: Secret) => (typeof secret === "string" ? secret : Redacted.value(secret))
const bytesOf = (body: string | Uint8Array) => (typeof body === "string" ? utf8(body) : body)

/** The hex `h1` signature of `${ts}:${body}` under `secret` (its UTF-8 bytes, as Paddle keys it). */
export const paddleH1Signature = (secret: Secret, timestamp: number, body: string | Uint8Array) =>
  Effect.flatMap(importHmacKey(reveal(secret)), (key) => Effect.map(hmacSha256(key, utf8(`${timestamp}:`), bytesOf(body)), toHex))

/** Options of `paddleSignatureHeader` and `signPaddleRequest`. */
export interface SignOptions {
  /** Unix seconds; default now on Effect's Clock. */
  readonly timestamp?: number
  /** More secrets to add an `h1` for (a rotated secret still active). */
  readonly alsoSignWith?: ReadonlyArray<Secret>
}

/** A `Paddle-Signature` value: `ts=…;h1=…` with one `h1` per secret. */
export const paddleSignatureHeader = (secret: Secret, body: string | Uint8Array, options: SignOptions = {}) =>
  Effect.gen(function*() {
    const timestamp = options.timestamp ?? Math.floor((yield* Clock.currentTimeMillis) / 1000)
    const signatures = yield* Effect.forEach([secret, ...(options.alsoSignWith ?? [])], (s) => paddleH1Signature(s, timestamp, body))
    return [`ts=${timestamp}`, ...signatures.map((signature) => `h1=${signature}`)].join(";")
  })

/** A request carrying `body` as Paddle would send it, signed with `secret`. */
export const signPaddleRequest = (secret: Secret, body: string | Uint8Array, options: SignOptions = {}) =>
  Effect.map(paddleSignatureHeader(secret, body, options), (header) =>
    WebhookRequest.fromParts(bytesOf(body), { "content-type": "application/json", [SIGNATURE_HEADER]: header }))
