import { Clock, Duration, Effect, Option } from "effect"
import { fulfilmentHash } from "./fulfilment.js"
import { EventReceipt, NewOrder, type Order, type ReceiptOutcome } from "./order.js"
import type { VerifiedEvent, WebhookRequest } from "../providers/webhook.js"
import { OrderConflict } from "./errors.js"
import { Metrics } from "../observability/metrics.js"
import { step } from "../internal/spans.js"
import { Lease } from "./lease.js"
import { OrderStore } from "./order-store.js"
import { Providers } from "../providers/providers.js"
import { RetryPolicy } from "./retry-policy.js"
import { Outcome } from "./outcome.js"
import { sendLeased } from "./send-leased.js"

const recordReceipt = (event: VerifiedEvent, orderKey: string | null, outcome: ReceiptOutcome, now: number) =>
  Effect.flatMap(OrderStore, (store) =>
    store.recordReceipt(
      new EventReceipt({
        provider: event.provider,
        eventId: event.id,
        eventType: event.type,
        orderKey,
        outcome,
        receivedAt: now
      })
    ))

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
      case "pending": {
        if (order.nextAttemptAt > now) {
          // Only the backoff decides when a failed order is tried again: a replay (a
          // provider's retry, or a captured request sent again) neither sends nor counts
          // an attempt before then, so no burst of copies can cap an order early.
          yield* recordReceipt(event, key, "not_due", now)
          return Outcome.Retry({ orderKey: key, error: order.lastError ?? "not due yet", nextAttemptAt: order.nextAttemptAt })
        }
        const policy = yield* RetryPolicy
        const lease = yield* Lease
        const leased = yield* lease.acquire(key, {
          now,
          until: now + Duration.toMillis(policy.leaseFor),
          maxAttempts: policy.maxAttempts,
          dueOnly: true
        })
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
 * A webhook from arrival to outcome: verify, decode, store (leased, in one
 * statement), send, record. Every answer follows the HTTP contract: an order is
 * stored before any 2xx, and nothing is written for an unverified request.
 */
export const receive = (providerName: string, request: WebhookRequest) =>
  Effect.gen(function*() {
    const provider = yield* Effect.flatMap(Providers, (providers) => providers.get(providerName))
    const event = yield* provider.verify(request).pipe(step("verify"))
    const fulfilment = yield* provider.fulfilment(event).pipe(step("decode"))
    const now = yield* Clock.currentTimeMillis
    if (Option.isNone(fulfilment)) {
      yield* recordReceipt(event, null, "ignored", now)
      return Outcome.Ignored({ eventType: event.type })
    }

    const store = yield* OrderStore
    const policy = yield* RetryPolicy
    const order = new NewOrder({
      provider: provider.name,
      eventId: event.id,
      eventType: event.type,
      fulfilment: fulfilment.value,
      payloadHash: yield* fulfilmentHash(fulfilment.value)
    }, true) // built from a decoded fulfilment and a verified event
    const put = yield* store.put(order, { now, until: now + Duration.toMillis(policy.leaseFor) }).pipe(
      step("store")
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
      onSuccess: (outcome) => Metrics.webhook(providerName, outcome._tag),
      onFailure: (error) => Metrics.webhook(providerName, error._tag)
    }),
    step("receive", { provider: providerName })
  )
