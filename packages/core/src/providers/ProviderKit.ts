/**
 * The provider kit: `ProviderKit.make(spec)` makes a `WebhookProvider` from a header
 * parser, a signed-content function, an envelope schema and a fulfilment; the kit owns
 * the order of the checks.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { MalformedPayload, SignatureError } from "./errors.js"
import { DEFAULT_TOLERANCE, type Envelope, type ProviderSpec, type SecretKeyFormat, type SignatureParts } from "./kit.js"
import { eitherDecoderFor, parseJsonEither } from "./payload.js"
import type { WebhookProvider } from "./providers.js"
import { importSecretKeys, secretList, utf8SecretBytes } from "./secrets.js"
import { anyKeyMatches, anyKeyMatchesSync } from "./signatures.js"
import { timestampProblem } from "./timestamp.js"
import { VerifiedEvent, type WebhookRequest } from "./webhook.js"

const UTF8_SECRET: SecretKeyFormat = { bytes: utf8SecretBytes, unusable: "empty" }

/**
 * Makes a `WebhookProvider` from its parts. Each secret's key is imported here,
 * once, with the `Hmac` in context (Web Crypto unless a layer such as
 * `NodeHmac.layer()` selects another). `verify` then runs, in this order: parse
 * the header (`SignatureError` `missing_header` / `malformed_header`) → MAC of
 * the signed content under each key, newest first, compared in constant time
 * (`no_matching_signature`) → the timestamp window, when the scheme signs one
 * (`timestamp_too_old` / `timestamp_in_future`; after the MAC, so an unsigned
 * request learns nothing of the window) → the body as UTF-8 JSON → the envelope
 * schema (`MalformedPayload`; it must decode synchronously) → a `VerifiedEvent`.
 * With keys that sign synchronously (node:crypto) the whole check is one step
 * that never suspends the fiber.
 */
export const make = <P extends SignatureParts, E extends Envelope, I>(
  spec: ProviderSpec<P, E, I>
): Effect.Effect<WebhookProvider> =>
  Effect.gen(function*() {
    const name = spec.name
    const format = spec.secretFormat ?? UTF8_SECRET
    const keys = yield* importSecretKeys(name, secretList(spec.secrets), format.bytes, format.unusable)
    const toleranceSeconds = Duration.toSeconds(Duration.decode(spec.tolerance ?? DEFAULT_TOLERANCE))
    const decodeEnvelope = eitherDecoderFor(name, "event", spec.envelope)
    const noMatch = () =>
      Effect.fail(
        new SignatureError({
          provider: name,
          reason: "no_matching_signature",
          detail: "no signature matches the signed content under any configured secret"
        })
      )

    // What follows a matching MAC, all synchronous: the window, JSON, the envelope.
    const accept = (parts: P, request: WebhookRequest, nowMillis: number): Effect.Effect<VerifiedEvent, SignatureError | MalformedPayload> => {
      if (parts.timestamp !== undefined) {
        const problem = timestampProblem(name, parts.timestamp, toleranceSeconds, nowMillis)
        if (problem !== undefined) return Effect.fail(problem)
      }
      const payload = parseJsonEither(name, request.body)
      if (Either.isLeft(payload)) return Effect.fail(payload.left)
      const envelope = decodeEnvelope(payload.right)
      if (Either.isLeft(envelope)) return Effect.fail(envelope.left)
      const id = parts.id ?? envelope.right.id
      if (id === undefined) return Effect.fail(new MalformedPayload({ provider: name, detail: "event: no event id" }))
      // Every field was just checked: no second validation in the constructor.
      return Effect.succeed(new VerifiedEvent({ provider: name, id, type: envelope.right.type, payload: payload.right }, true))
    }
    const acceptNow = (parts: P, request: WebhookRequest) =>
      Effect.clockWith((clock) => accept(parts, request, clock.unsafeCurrentTimeMillis()))

    const verify: WebhookProvider["verify"] = keys.every((key) => key.signSync !== undefined)
      ? (request) =>
        Effect.clockWith((clock) => {
          const parsed = spec.parseSignature(request)
          if (Either.isLeft(parsed)) return Effect.fail(new SignatureError({ provider: name, ...parsed.left }))
          const parts = parsed.right
          return anyKeyMatchesSync(keys, spec.signedContent(parts, request), parts.signatures)
            ? accept(parts, request, clock.unsafeCurrentTimeMillis())
            : noMatch()
        })
      : (request) =>
        Effect.suspend(() => {
          const parsed = spec.parseSignature(request)
          if (Either.isLeft(parsed)) return Effect.fail(new SignatureError({ provider: name, ...parsed.left }))
          const parts = parsed.right
          return Effect.flatMap(
            anyKeyMatches(keys, spec.signedContent(parts, request), parts.signatures),
            (matched) => (matched ? acceptNow(parts, request) : noMatch())
          )
        })

    return {
      name,
      verify,
      fulfilment: spec.fulfilment,
      ...(spec.orderKeyOf === undefined ? {} : { orderKeyOf: spec.orderKeyOf }),
      ...(spec.reconcile === undefined ? {} : { reconcile: spec.reconcile })
    }
  })
