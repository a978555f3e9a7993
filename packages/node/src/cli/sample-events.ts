import { checkoutCompletedEvent, creemSignature } from "@hookgate/provider-creem/testing"
import { checkoutSessionEvent, stripeSignatureHeader } from "@hookgate/provider-stripe/testing"
import { Effect, type Redacted } from "effect"

export type ProviderName = "stripe" | "creem"

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
}

/**
 * A realistic paying event, signed as the provider signs it: a Stripe
 * `checkout.session.completed` (paid) or a Creem `checkout.completed`.
 */
export const signedPayingEvent = (provider: ProviderName, secret: Redacted.Redacted<string>, order: SampleOrder) =>
  Effect.gen(function*() {
    if (provider === "stripe") {
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
  })
