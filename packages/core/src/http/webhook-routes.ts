import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { WebhookRequest } from "../providers/webhook.js"
import { MalformedPayload } from "../providers/errors.js"
import { receive } from "../orders/receive.js"
import { answerDefect, answerError, answerOutcome, type ContractAnswer } from "./contract.js"
import { readBodyLimited } from "./read-body.js"
import { MailerCircuit } from "../mail/circuit.js"

/** Options of `webhookRoutes`. */
export interface WebhookRoutesOptions {
  /** Bodies larger than this answer 413 `too_large` (default 256 KiB). */
  readonly maxBodyBytes?: number
}

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

/** `POST /webhooks/:provider`: reads the raw body within the limit and runs `receive`. */
export const handleWebhook = (providerName: string, options: WebhookRoutesOptions = {}) =>
  Effect.flatMap(Clock.currentTimeMillis, (startedAt) => answerWebhook(providerName, options).pipe(
    Effect.tap(logAnswer(providerName, startedAt)),
    Effect.map(respond)
  ))

const answerWebhook = (providerName: string, options: WebhookRoutesOptions) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const body = yield* readBodyLimited(request, options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES).pipe(
      Effect.catchTag("RequestError", (error) =>
        Effect.fail(new MalformedPayload({ provider: providerName, detail: `body could not be read: ${error.reason}` })))
    )
    // Once the body is read, a client that hangs up (a provider's timeout) does not interrupt the
    // webhook: interrupted between claim and record, an accepted email would stay unrecorded until
    // the sweep sends it again. Every step is bounded (send timeout, store budget), and shutdown waits.
    return yield* Effect.uninterruptible(receive(providerName, WebhookRequest.fromParts(body, request.headers)))
  }).pipe(
    Effect.map(answerOutcome),
    Effect.catchAll((error) => Effect.succeed(answerError(error))),
    Effect.catchAllDefect((defect) => Effect.as(Effect.logError("webhook handler defect", defect), answerDefect))
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
