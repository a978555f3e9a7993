import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as EpochMillis from "../kernel/EpochMillis.js"
import { fulfilmentHash } from "../kernel/fulfilment.js"
import { leaseTermsFrom } from "../kernel/lease-protocol.js"
import { EventReceipt, NewOrder, type Order, type ReceiptOutcome } from "./order.js"
import type { VerifiedEvent, WebhookRequest } from "../providers/webhook.js"
import { OrderConflict } from "./errors.js"
import { StoreUnavailable } from "../kernel/store-errors.js"
import { type MalformedPayload, Unfulfillable } from "../providers/errors.js"
import { newAlert, raiseAlert } from "../alerts/raise.js"
import * as Metrics from "../observability/Metrics.js"
import { annotateStep, spanWhenTraced, stepEvent } from "../kernel/spans.js"
import { Lease } from "./lease.js"
import { OrderStore } from "./order-store.js"
import { Providers, type WebhookProvider } from "../providers/providers.js"
import { RetryPolicy } from "../kernel/retry-policy.js"
import { Outcome } from "./outcome.js"
import { sendLeased } from "./send-leased.js"

const recordReceipt = (
  event: VerifiedEvent,
  orderKey: string | null,
  outcome: ReceiptOutcome,
  now: number,
  failure: { readonly detail: string; readonly objectId: string | null } = { detail: "", objectId: null }
) =>
  Effect.flatMap(OrderStore, (store) =>
    store.recordReceipt(
      new EventReceipt({
        provider: event.provider,
        eventId: event.id,
        eventType: event.type,
        orderKey,
        outcome,
        receivedAt: now,
        detail: failure.detail === "" ? null : failure.detail,
        objectId: failure.objectId
      })
    ))

/**
 * A verified paying event that could not become a fulfilment is never lost
 * silently: a receipt with the decoding error and the provider's object id, an
 * owner alert (once per event), an ERROR log. Rule breaks (control characters,
 * over-long ids) stay `MalformedPayload` (400); every other failure is
 * `Unfulfillable` (500), so the provider retries as for a transient error.
 */
const keepUnfulfillable = (event: VerifiedEvent) => (error: MalformedPayload) =>
  Effect.gen(function*() {
    const now = yield* EpochMillis.now
    const objectId = error.objectId ?? null
    const outcome = error.invalidInput === true ? "malformed" : "unfulfillable"
    yield* recordReceipt(event, null, outcome, now, { detail: error.detail, objectId })
    yield* Effect.logError("a verified paying event could not be turned into an order").pipe(
      Effect.annotateLogs({ provider: event.provider, eventId: event.id, objectId, outcome, detail: error.detail })
    )
    yield* raiseAlert(newAlert({
      id: `unfulfillable:${event.provider}:${event.id}`,
      kind: "unfulfillable",
      orderKey: null,
      message: `${event.provider} event ${event.id} (${event.type}${objectId === null ? "" : `, ${objectId}`}) ` +
        `pays but made no order: ${error.detail}` +
        (outcome === "malformed" ? " (answered 400: it can never be accepted)" : " (answered 500: the provider retries)")
    }, now))
    return yield* outcome === "malformed"
      ? Effect.fail(error)
      : Effect.fail(new Unfulfillable({ provider: event.provider, eventId: event.id, objectId, detail: error.detail }))
  })

const preventedDuplicate = (key: string) =>
  Effect.zipRight(Metrics.duplicatePrevented, Effect.flatMap(OrderStore, (store) => store.notePrevented(key)))

/** A verified event for an order that is already stored. */
const receiveAgain = (event: VerifiedEvent, order: Order, now: number) =>
  Effect.gen(function*() {
    const key = order.key
    switch (order.status) {
      case "sent":
        yield* recordReceipt(event, key, "duplicate", now)
        yield* preventedDuplicate(key)
        return Outcome.Duplicate({ orderKey: key })
      case "capped":
        yield* recordReceipt(event, key, "replayed", now)
        return Outcome.Capped({ orderKey: key })
      case "failed":
        yield* recordReceipt(event, key, "replayed", now)
        return Outcome.Failed({ orderKey: key, error: order.lastError ?? "rejected" })
      case "unknown":
        // A newer release wrote this order in a state this one does not know (a rollback):
        // leave it to that release. 503, so the provider retries once it is back.
        return yield* new StoreUnavailable({ operation: `receive of ${key} (its status is one a newer hookgate wrote)` })
      case "pending": {
        if (order.leaseToken === null && order.nextAttemptAt > now) {
          // Only the backoff decides when a failed (released) order is tried again: a replay
          // (a provider's retry, or a captured request sent again) neither sends nor counts
          // an attempt before then, so no burst of copies can cap an order early. A leased
          // order is another sender's: the lease decides below.
          yield* recordReceipt(event, key, "not_due", now)
          return Outcome.Retry({ orderKey: key, error: order.lastError ?? "not due yet", nextAttemptAt: order.nextAttemptAt })
        }
        const policy = yield* RetryPolicy
        const lease = yield* Lease
        const leased = yield* lease.acquire(key, { ...yield* leaseTermsFrom(now), maxAttempts: policy.maxAttempts, dueOnly: true })
        if (Option.isNone(leased)) {
          yield* recordReceipt(event, key, "in_progress", now)
          yield* preventedDuplicate(key)
          return Outcome.InProgress({ orderKey: key })
        }
        yield* recordReceipt(event, key, "replayed", now)
        return yield* sendLeased(leased.value)
      }
    }
  })

/**
 * The event's fulfilment. A provider with `orderKeyOf` (an expensive fulfilment)
 * is first given the fulfilment already stored under the event's order key, so
 * a replay of a stored order need not fetch again; any other provider decodes
 * as before, with no store read.
 */
export const fulfilmentOf = (provider: WebhookProvider, event: VerifiedEvent) => {
  const key = provider.orderKeyOf?.(event)
  if (key === undefined) return provider.fulfilment(event)
  return Effect.flatMap(OrderStore, (store) =>
    Effect.flatMap(store.get(key), (order) => provider.fulfilment(event, { stored: Option.map(order, (o) => o.fulfilment) })))
}

/**
 * A webhook from arrival to outcome: verify, decode, store (leased, in one
 * statement), send, record. Every answer follows the HTTP contract: an order is
 * stored before any 2xx, and nothing is written for an unverified request.
 */
export const receive = (providerName: string, request: WebhookRequest) =>
  Effect.gen(function*() {
    const provider = yield* Effect.flatMap(Providers, (providers) => providers.get(providerName))
    const event = yield* provider.verify(request).pipe(stepEvent("verify"))
    const fulfilment = yield* fulfilmentOf(provider, event).pipe(
      Effect.catchTag("MalformedPayload", keepUnfulfillable(event)),
      stepEvent("decode")
    )
    const now = yield* EpochMillis.now
    if (Option.isNone(fulfilment)) {
      yield* recordReceipt(event, null, "ignored", now)
      return Outcome.Ignored({ eventType: event.type })
    }

    const store = yield* OrderStore
    const order = new NewOrder({
      provider: provider.name,
      eventId: event.id,
      eventType: event.type,
      fulfilment: fulfilment.value,
      payloadHash: yield* fulfilmentHash(fulfilment.value)
    }, true) // built from a decoded fulfilment and a verified event
    const put = yield* store.put(order, yield* leaseTermsFrom(now)).pipe(
      stepEvent("store")
    )
    switch (put._tag) {
      case "Stored":
        return yield* sendLeased(put.leased)
      case "Conflict":
        yield* recordReceipt(event, order.key, "conflict", now)
        return yield* new OrderConflict({
          orderKey: order.key,
          existingStatus: put.existing.status,
          existingHash: put.existing.payloadHash,
          incomingHash: order.payloadHash
        })
      case "AlreadyStored":
        return yield* receiveAgain(event, put.order, now)
    }
  }).pipe(
    Effect.tapBoth({
      onSuccess: (outcome) => Effect.zipRight(annotateStep({ outcome: outcome._tag }), Metrics.webhook(providerName, outcome._tag)),
      onFailure: (error) => Effect.zipRight(annotateStep({ outcome: error._tag }), Metrics.webhook(providerName, error._tag))
    }),
    spanWhenTraced("receive", { provider: providerName })
  )
