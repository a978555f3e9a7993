import * as Headers from "@effect/platform/Headers"
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import {
  Mailer,
  type MailerError,
  type MailerShape,
  type OutgoingEmail,
  Rejected,
  SendReceipt,
  Unknown
} from "@hookgate/core/mail"
import * as Clock from "effect/Clock"
import type * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { classifyAnswer, classifyErrorCode, classifyTransport } from "./internal/classify.js"
import { BatchResponse, decodeErrorBody, SendResponse } from "./internal/schemas.js"
import { toPostmarkEmail } from "./internal/wire.js"
import { DEFAULT_BASE_URL, DEFAULT_TIMEOUT, DEFAULT_USER_AGENT, PostmarkConfig, type PostmarkOptions } from "./options.js"

/** Postmark authenticates a server's requests by this header. */
const TOKEN_HEADER = "x-postmark-server-token"

/** Postmark's limit on `POST /email/batch`: 500 messages. */
export const MAX_BATCH_SIZE = 500

const requestFailed = (error: HttpClientError.HttpClientError, mailer: string): MailerError =>
  error._tag === "RequestError" && error.reason === "Transport"
    ? classifyTransport(error.cause, mailer)
    : error._tag === "RequestError"
    // Nothing left this process: the base URL or the body is wrong, and a retry would not fix it.
    ? new Rejected({ mailer, detail: `the request could not be built (${error.reason})`, code: "invalid_request" })
    : new Unknown({ mailer, detail: `the answer could not be read (${error.reason})` })

const readErrorAnswer = (response: HttpClientResponse.HttpClientResponse, mailer: string) =>
  Effect.map(
    // The status is enough to classify; a body that cannot be read only loses the message.
    Effect.orElseSucceed(response.text, () => ""),
    (text) => classifyAnswer({ status: response.status, body: decodeErrorBody(text), text }, mailer)
  )

/** What one message's result in a batch answer became. */
type BatchResult = Either.Either<SendReceipt, MailerError>

/**
 * The batch's results as the seam takes them: every receipt; or, when nothing went
 * out, the batch's error (the account's before a passing one before a refusal);
 * or, when some went out and some were refused, `Rejected` with the receipts of
 * those that went out (`accepted`): Postmark has no idempotency key, so the campaign
 * records them sent and sends only the others again, one by one.
 */
const settleBatch = (results: ReadonlyArray<BatchResult>, mailer: string): Effect.Effect<ReadonlyArray<SendReceipt>, MailerError> => {
  const errors = results.flatMap((r) => Either.isLeft(r) ? [r.left] : [])
  if (errors.length === 0) return Effect.succeed(results.map((r) => Either.getOrThrow(r)))
  const first = errors.find((e) => e._tag === "Misconfigured") ?? errors.find((e) => e._tag === "Transient") ?? errors[0]!
  if (errors.length === results.length) return Effect.fail(first)
  return Effect.fail(
    new Rejected({
      mailer,
      detail: `${errors.length} of ${results.length} messages refused; the first: ${first.detail}`,
      code: first._tag === "Rejected" && first.code !== undefined ? first.code : "batch_partially_refused",
      accepted: results.map((r) => Either.getOrUndefined(r))
    })
  )
}

/**
 * A `Mailer` on Postmark's Email API through `HttpClient` (provide
 * `FetchHttpClient.layer`: it runs on Node and on Workers). Postmark has no
 * idempotency key, so the mailer says it honours none (the pipeline then counts
 * and flags a resend after an uncertain attempt); the key travels in
 * `X-Hookgate-Idempotency-Key` for tracing.
 */
export const make = (options: PostmarkOptions): Effect.Effect<MailerShape, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const name = options.name ?? "postmark"
    const timeout = Duration.decode(options.timeout ?? DEFAULT_TIMEOUT)
    const baseUrl = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, "")
    const client = (yield* HttpClient.HttpClient).pipe(
      HttpClient.mapRequest((request) =>
        request.pipe(
          HttpClientRequest.prependUrl(baseUrl),
          HttpClientRequest.setHeader(TOKEN_HEADER, Redacted.value(options.serverToken)),
          HttpClientRequest.setHeader("user-agent", options.userAgent ?? DEFAULT_USER_AGENT),
          HttpClientRequest.acceptJson
        )
      ),
      HttpClient.withTracerPropagation(false)
    )

    const post = <A, I>(path: string, body: unknown, answer: Schema.Schema<A, I>) =>
      Effect.gen(function*() {
        const request = HttpClientRequest.post(path).pipe(HttpClientRequest.bodyUnsafeJson(body))
        const response = yield* Effect.mapError(client.execute(request), (error) => requestFailed(error, name))
        if (response.status < 200 || response.status >= 300) return yield* Effect.flip(readErrorAnswer(response, name))
        // Accepted: from here on every failure is Unknown (the email may be on its way).
        const text = yield* Effect.mapError(response.text, (error) => requestFailed(error, name))
        return yield* Either.match(Schema.decodeUnknownEither(Schema.parseJson(answer))(text), {
          onLeft: () => Effect.fail(new Unknown({ mailer: name, detail: `${response.status} with an answer that is not Postmark's` })),
          onRight: Effect.succeed
        })
      }).pipe(
        Effect.timeoutFail({
          duration: timeout,
          onTimeout: () => new Unknown({ mailer: name, detail: `no answer from Postmark within ${Duration.format(timeout)}` })
        }),
        // The token never reaches a span attribute or a logged request.
        Effect.locallyWith(Headers.currentRedactedNames, (names) => [...names, TOKEN_HEADER])
      )

    const resultOf = (result: typeof SendResponse.Type, acceptedAt: number): BatchResult =>
      result.ErrorCode === 0 && result.MessageID !== undefined
        ? Either.right(new SendReceipt({ mailer: name, messageId: result.MessageID, acceptedAt }))
        : Either.left(
          result.ErrorCode === 0
            ? new Unknown({ mailer: name, detail: "an accepted message without a MessageID" })
            : classifyErrorCode(result.ErrorCode, `ErrorCode ${result.ErrorCode}: ${result.Message}`, name)
        )

    const send = (email: OutgoingEmail, { idempotencyKey }: { readonly idempotencyKey: string }) =>
      post("/email", toPostmarkEmail(email, idempotencyKey, options.messageStream), SendResponse).pipe(
        Effect.flatMap((result) => Effect.flatMap(Clock.currentTimeMillis, (now) => resultOf(result, now))),
        Effect.withSpan("hookgate.postmark.send")
      )

    const sendBatch = (emails: ReadonlyArray<OutgoingEmail>, { idempotencyKey }: { readonly idempotencyKey: string }) => {
      if (emails.length === 0) return Effect.succeed([])
      if (emails.length > MAX_BATCH_SIZE) {
        return Effect.fail(
          new Rejected({ mailer: name, detail: `a batch holds at most ${MAX_BATCH_SIZE} emails, got ${emails.length}`, code: "batch_too_large" })
        )
      }
      // One key for the batch (the seam's); each message carries it, with its position, for tracing.
      const body = emails.map((email, i) => toPostmarkEmail(email, `${idempotencyKey}#${i}`, options.messageStream))
      return post("/email/batch", body, BatchResponse).pipe(
        Effect.flatMap((results) =>
          results.length === emails.length
            ? Effect.flatMap(Clock.currentTimeMillis, (now) => settleBatch(results.map((r) => resultOf(r, now)), name))
            : Effect.fail(new Unknown({ mailer: name, detail: `batch of ${emails.length} answered with ${results.length} results` }))
        ),
        Effect.withSpan("hookgate.postmark.send_batch", { attributes: { size: emails.length } })
      )
    }

    // Each call is bounded by `timeout`, so the pipeline needs no timer of its own.
    const mailer: MailerShape = { name, honoursIdempotencyKeys: false, callTimeout: timeout, send, sendBatch }
    return mailer
  })

/** The Postmark mailer as the `Mailer` service; needs an `HttpClient` (e.g. `FetchHttpClient.layer`). */
export const layer = (options: PostmarkOptions): Layer.Layer<Mailer, never, HttpClient.HttpClient> =>
  Layer.effect(Mailer, make(options))

/**
 * The Postmark mailer from Config (`PostmarkConfig` by default: `POSTMARK_SERVER_TOKEN`,
 * `POSTMARK_BASE_URL`, `POSTMARK_MESSAGE_STREAM`, `POSTMARK_TIMEOUT`).
 */
export const layerConfig = (
  config: Config.Config<PostmarkOptions> = PostmarkConfig
): Layer.Layer<Mailer, ConfigError.ConfigError, HttpClient.HttpClient> => Layer.effect(Mailer, Effect.flatMap(config, make))
