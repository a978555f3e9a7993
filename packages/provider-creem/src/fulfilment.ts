import { type Fulfilment } from "@hookgate/core"
import {
  decoderFor,
  fulfilmentBuilder,
  type MalformedPayload,
  type VerifiedEvent
} from "@hookgate/core/providers"
import { Effect, Option } from "effect"
import { CHECKOUT_COMPLETED, CheckoutCompletedEvent, type CompletedCheckout } from "./events.js"

/** Metadata values as strings: text as is, anything else as its JSON. */
const metadataStrings = (metadata: CompletedCheckout["metadata"]): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(metadata ?? {})) {
    if (value === undefined || value === null) continue
    out[key] = typeof value === "string" ? value : JSON.stringify(value)
  }
  return out
}

const productOf = (checkout: CompletedCheckout): string | null => {
  const product = checkout.product
  if (typeof product === "string") return product
  if (product != null) return product.id
  return checkout.order.product ?? null
}

/**
 * Maps a verified Creem event to the order it pays for: `checkout.completed`
 * becomes `creem:<object.order.id>`; every other type (refunds, disputes,
 * subscription changes, types Creem adds later) is `None`, answered `ignored`.
 */
export const creemFulfilment = (provider: string) => {
  const decode = decoderFor(provider, "checkout", CheckoutCompletedEvent)
  const build = fulfilmentBuilder(provider)

  return (event: VerifiedEvent): Effect.Effect<Option.Option<Fulfilment>, MalformedPayload> =>
    event.type !== CHECKOUT_COMPLETED
      ? Effect.succeedNone
      : Effect.gen(function*() {
        const checkout = (yield* decode(event.payload)).object
        const fulfilment = yield* build({
          orderKey: `${provider}:${checkout.order.id}`,
          email: checkout.customer.email.trim(),
          product: productOf(checkout),
          amount: checkout.order.amount,
          currency: checkout.order.currency,
          metadata: metadataStrings(checkout.metadata)
        })
        return Option.some(fulfilment)
      })
}
