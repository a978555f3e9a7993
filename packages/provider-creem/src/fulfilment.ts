import { fulfilOn, metadataStrings } from "@hookgate/core/providers"
import { CHECKOUT_COMPLETED, CheckoutCompletedEvent, type CompletedCheckout } from "./events.js"

const productOf = (checkout: CompletedCheckout): string | null => {
  const product = checkout.product
  if (typeof product === "string") return product
  if (product != null) return product.id
  return checkout.order.product ?? null
}

/**
 * Maps a verified Creem event to the order it pays for: `checkout.completed`
 * becomes `<provider>:<object.order.id>`; every other type (refunds, disputes,
 * subscription changes, types Creem adds later) is `None`, answered `ignored`.
 */
export const fulfilment = fulfilOn({
  types: [CHECKOUT_COMPLETED],
  schema: CheckoutCompletedEvent,
  objectIdAt: ["object", "id"],
  fulfilment: ({ object: checkout }) => ({
    orderId: checkout.order.id,
    email: checkout.customer.email,
    product: productOf(checkout),
    amount: checkout.order.amount,
    currency: checkout.order.currency,
    metadata: metadataStrings(checkout.metadata)
  })
})
