import { checkoutCompletedEvent, creemSignature } from "@hookgate/provider-creem/testing"
import { orderEvent as lemonSqueezyOrder, signLemonSqueezyRequest } from "@hookgate/provider-lemonsqueezy/testing"
import { paddleSignatureHeader, transactionEvent } from "@hookgate/provider-paddle/testing"
import { orderEvent as polarOrder, signPolarRequest } from "@hookgate/provider-polar/testing"
import { checkoutSessionEvent, stripeSignatureHeader } from "@hookgate/provider-stripe/testing"
import { Effect, type Redacted } from "effect"
import type { ProviderName } from "../gateway-layer.js"

export type { ProviderName }

export interface SignedEvent {
  readonly provider: ProviderName
  readonly orderKey: string
  readonly body: string
  readonly headers: Record<string, string>
}

export interface SampleOrder {
  readonly id: string
  readonly email: string
  readonly product?: string
  readonly amount?: number
  /** Paddle's transactions name a customer (`ctm_…`), whose email the gateway fetches from Paddle's API. */
  readonly paddleCustomer?: string
}

/** A customer id of the right shape for a Paddle sample whose customer was not given. */
const SAMPLE_PADDLE_CUSTOMER = "ctm_01hv8gq3318ktkfengj2r75gfx"

/**
 * A realistic paying event, signed as the provider signs it (each provider package's
 * `/testing` builds the body): a Stripe `checkout.session.completed` (paid), a Creem
 * `checkout.completed`, a Lemon Squeezy `order_created` (paid), a Polar `order.paid` or a
 * Paddle `transaction.completed`.
 */
export const signedPayingEvent = (provider: ProviderName, secret: Redacted.Redacted<string>, order: SampleOrder) =>
  Effect.gen(function*() {
    switch (provider) {
      case "stripe": {
        const sessionId = `cs_test_${order.id}`
        const body = checkoutSessionEvent(`evt_${order.id}`, "checkout.session.completed", {
          id: sessionId,
          email: order.email,
          amountTotal: order.amount ?? 4900,
          currency: "usd",
          metadata: { product_id: order.product ?? "licence-pro" }
        })
        const signature = yield* stripeSignatureHeader(secret, body)
        return { provider, orderKey: `stripe:${sessionId}`, body, headers: { "stripe-signature": signature } } satisfies SignedEvent
      }
      case "creem": {
        const orderId = `ord_${order.id}`
        const body = checkoutCompletedEvent(`evt_${order.id}`, {
          orderId,
          email: order.email,
          productId: order.product ?? "prod_course_101",
          amount: order.amount ?? 2900,
          currency: "EUR"
        })
        const signature = yield* creemSignature(secret, body)
        return { provider, orderKey: `creem:${orderId}`, body, headers: { "creem-signature": signature } } satisfies SignedEvent
      }
      case "lemonsqueezy": {
        const body = lemonSqueezyOrder({ orderId: order.id, email: order.email, total: order.amount ?? 1199, currency: "USD" })
        const request = yield* signLemonSqueezyRequest(secret, body)
        return { provider, orderKey: `lemonsqueezy:${order.id}`, body, headers: { ...request.headers } } satisfies SignedEvent
      }
      case "polar": {
        const orderId = `ord_${order.id}`
        const body = polarOrder({ orderId, email: order.email, totalAmount: order.amount ?? 2900, currency: "usd" })
        const request = yield* signPolarRequest(secret, body, { id: `msg_${order.id}` })
        return { provider, orderKey: `polar:${orderId}`, body, headers: { ...request.headers } } satisfies SignedEvent
      }
      case "paddle": {
        const transactionId = `txn_${order.id}`
        const body = transactionEvent(`evt_${order.id}`, "transaction.completed", {
          id: transactionId,
          customerId: order.paddleCustomer ?? SAMPLE_PADDLE_CUSTOMER,
          grandTotal: order.amount ?? 2900,
          currency: "USD"
        })
        const signature = yield* paddleSignatureHeader(secret, body)
        return {
          provider,
          orderKey: `paddle:${transactionId}`,
          body,
          headers: { "content-type": "application/json", "paddle-signature": signature }
        } satisfies SignedEvent
      }
    }
  })
