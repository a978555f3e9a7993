import { fulfilOn } from "@hookgate/core/providers"
import { CheckoutSessionStatus, PAID_STATUSES, PaidCheckoutSessionEvent, PAYING_EVENT_TYPES } from "./events.js"

/**
 * Maps a verified Stripe event to the order it pays for:
 * - `checkout.session.completed` with `payment_status` `paid` or `no_payment_required`,
 *   and `checkout.session.async_payment_succeeded`, become `<provider>:<session id>`;
 * - a completed session still `unpaid` (a delayed method) is `None`: the pipeline
 *   keeps its receipt and answers `ignored` until the async success arrives;
 * - every other type is `None`.
 * Both paying events of one session map to the same key and the same fields, so
 * the second is a duplicate of the first, never a second email. The email is
 * `customer_details.email`, else `customer_email`.
 */
export const fulfilment = fulfilOn({
  types: PAYING_EVENT_TYPES,
  pending: {
    types: ["checkout.session.completed"],
    schema: CheckoutSessionStatus,
    is: (state) => !PAID_STATUSES.has(state.data.object.payment_status)
  },
  schema: PaidCheckoutSessionEvent,
  objectIdAt: ["data", "object", "id"],
  fulfilment: ({ data: { object: session } }) => {
    const metadata = session.metadata ?? {}
    return {
      orderId: session.id,
      email: session.customer_details?.email ?? session.customer_email ?? "",
      product: metadata.product_id ?? null,
      amount: session.amount_total,
      currency: session.currency,
      metadata
    }
  }
})
