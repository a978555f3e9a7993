import { fulfilOn, metadataStrings } from "@hookgate/core/providers"
import { ORDER_CREATED, OrderCreatedEvent, OrderStatus, PAID_STATUS } from "./events.js"

/**
 * Maps a verified Lemon Squeezy event to the order it pays for: `order_created`
 * whose order is `paid` becomes `<provider>:<data.id>`; an order in any other
 * status, and every other event (`order_refunded`, `subscription_*`,
 * `license_key_*`, types added later), is `None`, answered `ignored`. The
 * product is `first_order_item.product_id`; `meta.custom_data` becomes the
 * metadata, with `test_mode: "true"` added for a test-mode order.
 */
export const fulfilment = fulfilOn({
  types: [ORDER_CREATED],
  pending: { schema: OrderStatus, is: (state) => state.data.attributes.status !== PAID_STATUS },
  schema: OrderCreatedEvent,
  objectIdAt: ["data", "id"],
  fulfilment: ({ data: order, meta }) => {
    const item = order.attributes.first_order_item
    const product = item?.product_id ?? null
    return {
      orderId: order.id,
      email: order.attributes.user_email,
      product: product === null ? null : String(product),
      amount: order.attributes.total,
      currency: order.attributes.currency,
      metadata: { ...metadataStrings(meta.custom_data), ...(meta.test_mode === true ? { test_mode: "true" } : {}) }
    }
  }
})
