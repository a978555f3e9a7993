import { type Fulfilment } from "@hookgate/core"
import { decoderFor, fulfilmentBuilder, MalformedPayload, type VerifiedEvent } from "@hookgate/core/providers"
import { Effect, Option } from "effect"
import { CheckoutSessionStatus, PAID_STATUSES, PaidCheckoutSessionEvent, PAYING_EVENT_TYPES } from "./events.js"

/**
 * Maps a verified Stripe event to the order it pays for:
 * - `checkout.session.completed` with `payment_status` `paid` or `no_payment_required`,
 *   and `checkout.session.async_payment_succeeded`, become `stripe:<session id>`;
 * - a completed session still `unpaid` (a delayed method) is `None`: the pipeline
 *   keeps its receipt and answers `ignored` until the async success arrives;
 * - every other type is `None`.
 * Both paying events of one session map to the same key and the same fields, so
 * the second is a duplicate of the first, never a second email.
 */
export const stripeFulfilment = (provider: string) => {
  const decodeStatus = decoderFor(provider, "checkout session", CheckoutSessionStatus)
  const decodeSession = decoderFor(provider, "checkout session", PaidCheckoutSessionEvent)
  const build = fulfilmentBuilder(provider)

  return (event: VerifiedEvent): Effect.Effect<Option.Option<Fulfilment>, MalformedPayload> => {
    if (!PAYING_EVENT_TYPES.has(event.type)) return Effect.succeedNone
    return Effect.gen(function*() {
      if (event.type === "checkout.session.completed") {
        const status = (yield* decodeStatus(event.payload)).data.object.payment_status
        if (!PAID_STATUSES.has(status)) return Option.none()
      }
      const session = (yield* decodeSession(event.payload)).data.object
      const email = (session.customer_details?.email ?? session.customer_email ?? "").trim()
      if (email === "") {
        return yield* new MalformedPayload({ provider, detail: "checkout session: neither customer_details.email nor customer_email is set" })
      }
      const metadata = session.metadata ?? {}
      return Option.some(
        yield* build({
          orderKey: `${provider}:${session.id}`,
          email,
          product: metadata.product_id ?? null,
          amount: session.amount_total,
          currency: session.currency,
          metadata
        })
      )
    })
  }
}
