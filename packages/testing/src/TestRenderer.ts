import { Renderer } from "@hookgate/core"
import { OutgoingEmail } from "@hookgate/core/mail"

/** A plain renderer for tests and the demo: one line naming the product and the order. */
export const layer = Renderer.fromFunction((order) =>
  new OutgoingEmail({
    from: "shop@example.com",
    to: order.fulfilment.email,
    subject: `Your order ${order.key}`,
    text: `Thank you for buying ${order.fulfilment.product ?? "our product"}. Order ${order.key}.`
  })
)
