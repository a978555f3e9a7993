import { Renderer } from "@hookgate/core"
import { OutgoingEmail } from "@hookgate/core/mail"

/** One formatter per currency (building one costs more than the rest of the email); null where Intl knows no such currency. */
const formatters = new Map<string, Intl.NumberFormat | null>()

const formatterFor = (currency: string) => {
  let formatter = formatters.get(currency)
  if (formatter === undefined) {
    try {
      formatter = new Intl.NumberFormat("en", { style: "currency", currency })
    } catch {
      formatter = null
    }
    // Currencies come from webhooks: bounded, so a stream of made-up codes cannot grow the map without end.
    if (formatters.size < 1000) formatters.set(currency, formatter)
  }
  return formatter
}

const money = (amount: number, currency: string) => {
  const code = currency.toUpperCase()
  const formatter = formatterFor(code)
  return formatter === null ? `${(amount / 100).toFixed(2)} ${code}` : formatter.format(amount / 100)
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
