import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { WebhookRequest } from "../providers/webhook.js"
import { MalformedPayload } from "../providers/errors.js"
import { receive } from "../orders/receive.js"
import { answerDefect, answerError, answerOutcome, type ContractAnswer } from "./contract.js"
import { readBodyLimited, readWebRequestBody } from "./read-body.js"
import type { BodyTooLarge } from "./errors.js"
import { MailerCircuit } from "../mail/circuit.js"

/** Options of `webhookRoutes`. */
export interface WebhookRoutesOptions {
  /** Bodies larger than this answer 413 `too_large` (default 256 KiB). */
  readonly maxBodyBytes?: number
}

/** A Web request's body that could not be read (the client hung up); answered 400 as `MalformedPayload`. */
class BodyUnreadable extends Data.TaggedError("BodyUnreadable")<{ readonly cause: unknown }> {}

/** The default body limit of a webhook: 256 KiB. */
export const DEFAULT_MAX_BODY_BYTES = 256 * 1024

const respond = (answer: ContractAnswer) => HttpServerResponse.unsafeJson(answer.body, { status: answer.httpStatus })

/** One structured line per webhook: provider, outcome, order key, status, duration. Never a body or a secret. */
const logAnswer = (providerName: string, startedAt: number) => (answer: ContractAnswer) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) =>
    Effect.logInfo("webhook").pipe(
      Effect.annotateLogs({
        provider: providerName,
        outcome: answer.body.status,
        orderKey: answer.body.orderId ?? null,
        httpStatus: answer.httpStatus,
        durationMs: now - startedAt
      })
    ))

/** The answer, logged: what a webhook route serves. */
const answeredAndLogged = <R>(providerName: string, answer: Effect.Effect<ContractAnswer, never, R>) =>
  Effect.flatMap(Clock.currentTimeMillis, (startedAt) => Effect.tap(answer, logAnswer(providerName, startedAt)))

/**
 * The answer to a webhook whose raw body `readBody` reads within the limit. Never fails:
 * every error is an answer of the contract.
 */
const answerWebhook = <E extends { readonly _tag: string }>(
  providerName: string,
  readBody: Effect.Effect<Uint8Array, BodyTooLarge | E>,
  headers: Iterable<readonly [string, string]> | Record<string, string>,
  unreadable: (error: E) => string
) =>
  Effect.gen(function*() {
    const body = yield* Effect.catchIf(
      readBody,
      (error): error is E => error._tag !== "BodyTooLarge",
      (error) => Effect.fail(new MalformedPayload({ provider: providerName, detail: `body could not be read: ${unreadable(error)}` }))
    )
    // Once the body is read, a client that hangs up (a provider's timeout) does not interrupt the
    // webhook: interrupted between claim and record, an accepted email would stay unrecorded until
    // the sweep sends it again. Every step is bounded (send timeout, store budget), and shutdown waits.
    return yield* Effect.uninterruptible(receive(providerName, WebhookRequest.fromParts(body, headers)))
  }).pipe(
    Effect.map(answerOutcome),
    Effect.catchAll((error) => Effect.succeed(answerError(error))),
    Effect.catchAllDefect((defect) => Effect.as(Effect.logError("webhook handler defect", defect), answerDefect))
  )

/** `POST /webhooks/:provider`: reads the raw body within the limit and runs `receive`. */
export const handleWebhook = (providerName: string, options: WebhookRoutesOptions = {}) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    answeredAndLogged(
      providerName,
      answerWebhook(
        providerName,
        readBodyLimited(request, options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES),
        request.headers,
        (error) => error.reason
      )
    ).pipe(Effect.map(respond)))

/**
 * What `POST /webhooks/:provider` answers, for a Web `Request` and outside any
 * router: the contract's answer (status and JSON body), logged as the route
 * logs it. For a runtime that serves its webhooks itself (`makeWorker` of
 * `@hookgate/cloudflare` does, without @effect/platform's per-request work);
 * everywhere else, mount `webhookRoutes`.
 */
export const answerWebhookRequest = (providerName: string, request: Request, options: WebhookRoutesOptions = {}) =>
  answeredAndLogged(
    providerName,
    answerWebhook(
      providerName,
      Effect.suspend(() => readWebRequestBody(request, options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, (cause) => new BodyUnreadable({ cause }))),
      request.headers,
      () => "Decode"
    )
  )

/** The webhook and health routes, shared by the Node server and the Worker. */
export const webhookRoutes = (options: WebhookRoutesOptions = {}) =>
  HttpRouter.empty.pipe(
    HttpRouter.post(
      "/webhooks/:provider",
      Effect.flatMap(HttpRouter.params, (params) => handleWebhook(params.provider ?? "", options))
    ),
    // Still 200 while the mailer is misconfigured (the gateway is up and stores orders:
    // a restart would not help), but it says so: `mailer: "misconfigured"`, the error class.
    HttpRouter.get(
      "/healthz",
      Effect.map(
        Effect.flatMap(MailerCircuit, (circuit) => circuit.status),
        (mailer) => HttpServerResponse.unsafeJson({ status: "ok", ...mailer })
      )
    )
  )
