import { fulfilOn, metadataStrings } from "@hookgate/core/providers"
import { ORDER_PAID, OrderPaidEvent, OrderStatus } from "./events.js"

/**
 * Maps a verified Polar event to the order it pays for: `order.paid` with
 * `data.status` `paid` becomes `<provider>:<data.id>`, with `data.customer.email`,
 * `data.product_id`, `data.total_amount`, `data.currency` and `data.metadata`
 * (as strings). Every other type (`order.created`, `order.updated`,
 * `order.refunded`, `refund.*`, `subscription.*`, `checkout.*`, types Polar adds
 * later), and an `order.paid` whose order is no longer `paid`, is `None`.
 */
export const fulfilment = fulfilOn({
  types: [ORDER_PAID],
  pending: { schema: OrderStatus, is: (state) => state.data.status !== "paid" },
  schema: OrderPaidEvent,
  objectIdAt: ["data", "id"],
  fulfilment: ({ data: order }) => ({
    orderId: order.id,
    email: order.customer.email,
    product: order.product_id ?? null,
    amount: order.total_amount,
    currency: order.currency,
    metadata: metadataStrings(order.metadata)
  })
})
