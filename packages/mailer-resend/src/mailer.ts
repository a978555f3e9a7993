import { spanWhenTraced, tracingEnabled } from "@hookgate/core"
import * as Headers from "@effect/platform/Headers"
import * as HttpBody from "@effect/platform/HttpBody"
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import {
  boundedEffect,
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
import type * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { classifyAnswer, type ClassifyOptions, classifyTransport } from "./internal/classify.js"
import { retryAfterFrom } from "./internal/retry-after.js"
import { decodeBatchResponse, decodeErrorBody, decodeSendResponse } from "./internal/schemas.js"
import { toResendEmail } from "./internal/wire.js"
import {
  DEFAULT_BASE_URL,
  DEFAULT_QUOTA_RETRY_AFTER,
  DEFAULT_TIMEOUT,
  DEFAULT_USER_AGENT,
  ResendConfig,
  type ResendOptions
} from "./options.js"

/** Resend's limit on `POST /emails/batch`. */
export const MAX_BATCH_SIZE = 100

const requestFailed = (error: HttpClientError.HttpClientError, mailer: string): MailerError =>
  error._tag === "RequestError" && error.reason === "Transport"
    ? classifyTransport(error.cause, mailer)
    : error._tag === "RequestError"
    // Nothing left this process: the base URL or the body is wrong, and a retry would not fix it.
    ? new Rejected({ mailer, detail: `the request could not be built (${error.reason})`, code: "invalid_request" })
    : new Unknown({ mailer, detail: `the answer could not be read (${error.reason})` })

const readErrorAnswer = (response: HttpClientResponse.HttpClientResponse, classify: ClassifyOptions) =>
  Effect.gen(function*() {
    // The status is enough to classify; a body that cannot be read only loses the message.
    const text = yield* Effect.orElseSucceed(response.text, () => "")
    const now = yield* Clock.currentTimeMillis
    return classifyAnswer(
      {
        status: response.status,
        body: decodeErrorBody(text),
        text,
        retryAfter: retryAfterFrom(response.headers, now)
      },
      classify
    )
  })

/** Whether @effect/platform makes no client span for `request` on `fiber` (and so sends no trace context): its own test. */
const clientSpanOff = (fiber: Fiber.RuntimeFiber<unknown, unknown>, request: HttpClientRequest.HttpClientRequest) =>
  !fiber.getFiberRef(FiberRef.currentTracerEnabled) || fiber.getFiberRef(HttpClient.currentTracerDisabledWhen)(request)

/** How long Resend remembers an idempotency key: 24 hours (a key used again later is a new email). */
export const RESEND_KEY_WINDOW = Duration.hours(24)

/**
 * A `Mailer` on Resend's REST API through `HttpClient` (provide
 * `FetchHttpClient.layer`: it runs on Node and on Workers). Every request
 * carries the order's `Idempotency-Key` (as fitted by `@hookgate/core/mail`),
 * so Resend answers a repeated send within 24 hours with the first email's id
 * instead of sending again.
 */
export const make = (options: ResendOptions): Effect.Effect<MailerShape, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const name = options.name ?? "resend"
    const timeout = Duration.decode(options.timeout ?? DEFAULT_TIMEOUT)
    const classify: ClassifyOptions = {
      mailer: name,
      quotaRetryAfter: Duration.decode(options.quotaRetryAfter ?? DEFAULT_QUOTA_RETRY_AFTER)
    }
    const baseUrl = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, "")
    // The headers every request carries, made once. The key leaves its Redacted only into
    // `authorization`, which Headers redacts when printed.
    const fixedHeaders = Headers.fromInput({
      authorization: `Bearer ${Redacted.value(options.apiKey)}`,
      "user-agent": options.userAgent ?? DEFAULT_USER_AGENT,
      accept: "application/json"
    })
    const client = yield* HttpClient.HttpClient
    // W3C trace context (`traceparent`) goes with the call only while traces are exported, so a
    // collector can join the call to the webhook's trace; under Effect's built-in tracer it
    // would carry ids that name nothing. Where @effect/platform makes no client span for the
    // request (the gateway turns them off while nothing is exported), it sends no trace
    // context either, and the plain client is enough.
    const quiet = HttpClient.withTracerPropagation(client, false)
    const execute = (request: HttpClientRequest.HttpClientRequest) =>
      Effect.withFiberRuntime<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError>((fiber) =>
        (tracingEnabled(fiber) || clientSpanOff(fiber, request) ? client : quiet).execute(request)
      )

    // The key is sent as given: the core fitted it (length, header-safe) once.
    const post = <A>(path: string, body: unknown, idempotencyKey: string, decode: (text: string) => Either.Either<A, unknown>) =>
      Effect.gen(function*() {
        const request = HttpClientRequest.post(`${baseUrl}${path}`, {
          headers: Headers.set(fixedHeaders, "idempotency-key", idempotencyKey),
          body: HttpBody.unsafeJson(body)
        })
        const response = yield* Effect.mapError(execute(request), (error) => requestFailed(error, name))
        if (response.status < 200 || response.status >= 300) {
          return yield* Effect.flip(readErrorAnswer(response, classify))
        }
        // Accepted: from here on every failure is Unknown; a retry with the same key is answered, not resent.
        const text = yield* Effect.mapError(response.text, (error) => requestFailed(error, name))
        return yield* Either.match(decode(text), {
          onLeft: () =>
            Effect.fail(new Unknown({ mailer: name, detail: `${response.status} with an answer that is not Resend's` })),
          onRight: Effect.succeed
        })
      }).pipe(
        // One fiber and one timer; interrupted on the timeout, the call aborts its request.
        boundedEffect({
          timeout,
          onTimeout: () => new Unknown({ mailer: name, detail: `no answer from Resend within ${Duration.format(timeout)}` })
        })
      )

    const receipt = (id: string) =>
      Effect.map(Clock.currentTimeMillis, (acceptedAt) => new SendReceipt({ mailer: name, messageId: id, acceptedAt }))

    const send = (email: OutgoingEmail, { idempotencyKey }: { readonly idempotencyKey: string }) =>
      post("/emails", toResendEmail(email), idempotencyKey, decodeSendResponse).pipe(
        Effect.flatMap(({ id }) => receipt(id)),
        spanWhenTraced("resend.send")
      )

    const sendBatch = (emails: ReadonlyArray<OutgoingEmail>, { idempotencyKey }: { readonly idempotencyKey: string }) => {
      if (emails.length === 0) return Effect.succeed([])
      if (emails.length > MAX_BATCH_SIZE) {
        return Effect.fail(
          new Rejected({
            mailer: name,
            detail: `a batch holds at most ${MAX_BATCH_SIZE} emails, got ${emails.length}`,
            code: "batch_too_large"
          })
        )
      }
      return post("/emails/batch", emails.map(toResendEmail), idempotencyKey, decodeBatchResponse).pipe(
        Effect.flatMap(({ data }) =>
          data.length === emails.length
            ? Effect.forEach(data, ({ id }) => receipt(id))
            : Effect.fail(
              new Unknown({ mailer: name, detail: `batch of ${emails.length} answered with ${data.length} ids` })
            )
        ),
        spanWhenTraced("resend.send_batch", { size: emails.length })
      )
    }

    // Each call is bounded by `timeout`, so the pipeline needs no timer of its own.
    const mailer: MailerShape = {
      name,
      honoursIdempotencyKeys: true,
      idempotencyKeyWindow: RESEND_KEY_WINDOW,
      callTimeout: timeout,
      send,
      sendBatch
    }
    return mailer
  })

/** The Resend mailer as the `Mailer` service; needs an `HttpClient` (e.g. `FetchHttpClient.layer`). */
export const layer = (options: ResendOptions): Layer.Layer<Mailer, never, HttpClient.HttpClient> =>
  Layer.effect(Mailer, make(options))

/** The Resend mailer from Config (`ResendConfig` by default: `RESEND_API_KEY`, `RESEND_BASE_URL`, `RESEND_TIMEOUT`). */
export const layerConfig = (
  config: Config.Config<ResendOptions> = ResendConfig
): Layer.Layer<Mailer, ConfigError.ConfigError, HttpClient.HttpClient> => Layer.effect(Mailer, Effect.flatMap(config, make))

