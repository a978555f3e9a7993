// What the worker suite's two Effect Workers (minimal-effect.ts, platform-floor.ts)
// share of the hand-written Worker's work: Stripe's signature checked with Web Crypto
// (the hand-written Worker's own check), the event decoded by Schema, the buyer's
// email as the `send_email` binding takes it. Bundled into each of them.
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { type SendEmail, verified } from "./handwritten.js"

const CheckoutEvent = Schema.parseJson(Schema.Struct({
  type: Schema.String,
  data: Schema.Struct({
    object: Schema.Struct({
      id: Schema.String,
      payment_status: Schema.String,
      customer_details: Schema.Struct({ email: Schema.String })
    })
  })
}))
const decodeEvent = Schema.decodeUnknown(CheckoutEvent)

/**
 * What a webhook's body asks for: "unauthorized" (no valid signature), "ignored"
 * (not a paid Checkout Session), or the paid order's key and the buyer's email.
 */
export const paidOrder = (secret: string, header: string | null | undefined, body: string) =>
  Effect.gen(function*() {
    if (!(yield* Effect.promise(() => verified(secret, header, body)))) return "unauthorized" as const
    const event = yield* decodeEvent(body)
    const session = event.data.object
    if (event.type !== "checkout.session.completed" || session.payment_status !== "paid") return "ignored" as const
    return { orderKey: `stripe:${session.id}`, email: session.customer_details.email }
  })

/** The buyer's email for `orderKey`, keyed by it. */
export const orderEmail = (orderKey: string, email: string): Parameters<SendEmail["send"]>[0] => ({
  from: { email: "shop@example.com", name: "Example Shop" },
  to: email,
  subject: "Your order is ready",
  text: `Thank you! Your order ${orderKey} is ready.`,
  headers: { "X-Idempotency-Key": orderKey }
})
