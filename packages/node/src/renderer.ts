import { Renderer } from "@hookgate/core"
import { OutgoingEmail } from "@hookgate/core/mail"

const money = (amount: number, currency: string) => {
  try {
    return new Intl.NumberFormat("en", { style: "currency", currency: currency.toUpperCase() }).format(amount / 100)
  } catch {
    return `${(amount / 100).toFixed(2)} ${currency.toUpperCase()}`
  }
}

/**
 * The gateway's default email: a plain receipt naming the product, the amount
 * and the order. Merchants replace it with their own `Renderer` layer.
 */
export const layerDefaultRenderer = (from: string) =>
  Renderer.fromFunction((order) => {
    const { amount, currency, email, product } = order.fulfilment
    const what = product ?? "your purchase"
    return new OutgoingEmail({
      from,
      to: email,
      subject: `Your order: ${what}`,
      text: [
        "Thank you for your order.",
        "",
        `Product: ${what}`,
        `Amount: ${money(amount, currency)}`,
        `Order: ${order.key}`,
        "",
        "Keep this email: it is your receipt."
      ].join("\n")
    })
  })
