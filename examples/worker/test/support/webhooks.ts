import { checkoutCompletedEvent, creemSignature } from "@hookgate/provider-creem/testing"
import { orderEvent, signLemonSqueezyRequest } from "@hookgate/provider-lemonsqueezy/testing"
import { signPaddleRequest, transactionEvent } from "@hookgate/provider-paddle/testing"
import { checkoutSessionEvent, stripeSignatureHeader } from "@hookgate/provider-stripe/testing"
import { Effect } from "effect"

export const STRIPE_SECRET = "whsec_example_worker_stripe"
export const CREEM_SECRET = "whsec_example_worker_creem"
export const LEMONSQUEEZY_SECRET = "example-worker-lemonsqueezy"
export const PADDLE_SECRET = "pdl_ntfset_example_worker"

export interface SignedWebhook {
  readonly path: string
  readonly body: string
  readonly headers: Record<string, string>
}

/** A paid Checkout Session, signed as Stripe signs it (now). */
export const stripeCheckout = (sessionId: string, options: { readonly email?: string; readonly eventId?: string } = {}) =>
  Effect.runPromise(Effect.gen(function*() {
    const body = checkoutSessionEvent(options.eventId ?? `evt_${sessionId}`, "checkout.session.completed", {
      id: sessionId,
      email: options.email ?? "buyer@example.com",
      amountTotal: 1900,
      currency: "usd"
    })
    const signature = yield* stripeSignatureHeader(STRIPE_SECRET, body)
    return {
      path: "/webhooks/stripe",
      body,
      headers: { "content-type": "application/json", "stripe-signature": signature }
    } satisfies SignedWebhook
  }))

/** A completed Creem checkout, signed as Creem signs it. */
export const creemCheckout = (orderId: string, email = "buyer@example.com") =>
  Effect.runPromise(Effect.gen(function*() {
    const body = checkoutCompletedEvent(`evt_${orderId}`, { orderId, email })
    const signature = yield* creemSignature(CREEM_SECRET, body)
    return {
      path: "/webhooks/creem",
      body,
      headers: { "content-type": "application/json", "creem-signature": signature }
    } satisfies SignedWebhook
  }))

/** A paid Lemon Squeezy `order_created`, signed as Lemon Squeezy signs it (`X-Signature`, `X-Event-Name`). */
export const lemonSqueezyOrder = (orderId: string, email = "buyer@example.com") =>
  Effect.runPromise(Effect.gen(function*() {
    const body = orderEvent({ orderId, email })
    const request = yield* signLemonSqueezyRequest(LEMONSQUEEZY_SECRET, body)
    return { path: "/webhooks/lemonsqueezy", body, headers: { ...request.headers } } satisfies SignedWebhook
  }))

/** A paid Paddle transaction for `customerId`, signed now as Paddle signs each delivery. */
export const paddleTransaction = (transactionId: string, customerId: string, type: "transaction.paid" | "transaction.completed" = "transaction.paid") =>
  Effect.runPromise(Effect.gen(function*() {
    const body = transactionEvent(`evt_${transactionId}_${type}`, type, { id: transactionId, customerId })
    const request = yield* signPaddleRequest(PADDLE_SECRET, body)
    return { path: "/webhooks/paddle", body, headers: { ...request.headers } } satisfies SignedWebhook
  }))
