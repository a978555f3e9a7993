import type { BodyTooLarge } from "./errors.js"
import type { MalformedPayload, SignatureError, Unfulfillable, UnknownProvider } from "../providers/errors.js"
import type { OrderConflict } from "../orders/errors.js"
import type { StoreUnavailable } from "../kernel/store-errors.js"
import type { Outcome } from "../orders/outcome.js"
import type {
  CampaignExists,
  CampaignNotFound,
  CampaignStateError,
  InvalidCampaign,
  InvalidRecipient,
  RecipientTooLarge
} from "../campaigns/errors.js"
import type { QueueUnavailable } from "../queue/errors.js"

/** The one place where outcomes and errors become HTTP statuses (the table in docs/http-contract.md). */

export type ReceiveError =
  | UnknownProvider
  | SignatureError
  | MalformedPayload
  | Unfulfillable
  | OrderConflict
  | BodyTooLarge
  | StoreUnavailable

/** A JSON answer: always a `status`, an `orderId` where there is one. */
export interface ContractBody {
  readonly status: string
  readonly orderId?: string
  readonly [detail: string]: unknown
}

/** An HTTP status and its JSON body. */
export interface ContractAnswer {
  readonly httpStatus: number
  readonly body: ContractBody
}

/** The answer for an outcome of `receive`. */
export const answerOutcome = (outcome: Outcome): ContractAnswer => {
  switch (outcome._tag) {
    case "Sent":
      return { httpStatus: 200, body: { status: "sent", orderId: outcome.orderKey } }
    case "Duplicate":
      return { httpStatus: 200, body: { status: "duplicate", orderId: outcome.orderKey } }
    case "InProgress":
    case "Skipped":
      return { httpStatus: 202, body: { status: "in_progress", orderId: outcome.orderKey } }
    case "Ignored":
      return { httpStatus: 200, body: { status: "ignored", eventType: outcome.eventType } }
    case "Capped":
      return { httpStatus: 200, body: { status: "capped", orderId: outcome.orderKey } }
    case "Failed":
      // A permanent rejection. 200, because the provider
      // retrying the webhook cannot help; the operator was alerted.
      return { httpStatus: 200, body: { status: "failed", orderId: outcome.orderKey } }
    case "Held":
      // The mail account is misconfigured: nothing was sent or counted. 503 so that
      // the provider retries; the owner was alerted, the sweep sends once it is fixed.
      return {
        httpStatus: 503,
        body: {
          status: "unavailable",
          orderId: outcome.orderKey,
          reason: "mailer_misconfigured",
          nextAttemptAt: new Date(outcome.nextAttemptAt).toISOString()
        }
      }
    case "Retry":
      return {
        httpStatus: 500,
        body: { status: "retry", orderId: outcome.orderKey, nextAttemptAt: new Date(outcome.nextAttemptAt).toISOString() }
      }
  }
}

/** The answer for a typed failure of `receive`. */
export const answerError = (error: ReceiveError): ContractAnswer => {
  switch (error._tag) {
    case "UnknownProvider":
      return { httpStatus: 404, body: { status: "unknown_provider" } }
    case "SignatureError":
      return { httpStatus: 401, body: { status: "unauthorized", reason: error.reason } }
    case "MalformedPayload":
      return { httpStatus: 400, body: { status: "malformed", detail: error.detail } }
    case "Unfulfillable":
      // Stored as a receipt, the owner alerted: 500 so that the provider keeps retrying
      // (as for a transient error) while the owner fixes the product or the event.
      return {
        httpStatus: 500,
        body: {
          status: "unfulfillable",
          eventId: error.eventId,
          ...(error.objectId === null ? {} : { objectId: error.objectId }),
          detail: error.detail
        }
      }
    case "OrderConflict":
      return { httpStatus: 409, body: { status: "conflict", orderId: error.orderKey } }
    case "BodyTooLarge":
      return { httpStatus: 413, body: { status: "too_large", limitBytes: error.limitBytes } }
    case "StoreUnavailable":
      return { httpStatus: 503, body: { status: "unavailable" } }
  }
}

/** The typed failures of the campaign admin routes (`/admin/campaigns…`). */
export type CampaignRouteError =
  | CampaignNotFound
  | CampaignExists
  | CampaignStateError
  | InvalidCampaign
  | InvalidRecipient
  | RecipientTooLarge
  | BodyTooLarge
  | StoreUnavailable
  | QueueUnavailable

/**
 * The answer for a typed failure of a campaign route. A conflict with the campaign's
 * state (an id in use, an operation the state machine refuses) is a 409 that names the
 * state found; nothing changed.
 */
export const answerCampaignError = (error: CampaignRouteError): ContractAnswer => {
  switch (error._tag) {
    case "CampaignNotFound":
      return { httpStatus: 404, body: { status: "not_found", detail: error.message } }
    case "CampaignExists":
      return { httpStatus: 409, body: { status: "conflict", detail: error.message, state: error.state } }
    case "CampaignStateError":
      return {
        httpStatus: 409,
        body: { status: "conflict", detail: error.message, state: error.state, operation: error.operation }
      }
    case "BodyTooLarge":
      return { httpStatus: 413, body: { status: "too_large", limitBytes: error.limitBytes, detail: error.message } }
    case "InvalidCampaign":
    case "InvalidRecipient":
    case "RecipientTooLarge":
      // The input can never succeed: a 400 that names the problem, never a retryable 503.
      return { httpStatus: 400, body: { status: "bad_request", detail: error.message } }
    case "StoreUnavailable":
    case "QueueUnavailable":
      return { httpStatus: 503, body: { status: "unavailable" } }
  }
}

/** A defect (a bug, not a contract outcome): 500 so that the provider retries. */
export const answerDefect: ContractAnswer = { httpStatus: 500, body: { status: "error" } }
