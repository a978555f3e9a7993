import { hmacSha256, importHmacKey, toHex, utf8, WebhookRequest } from "@hookgate/core/providers"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { SIGNATURE_HEADER } from "./signature.js"

/**
 * @hookgate/provider-stripe/testing: sign bodies as Stripe does, and build the
 * Checkout events hookgate reads, for tests and demos.
 */

type Secret = Redacted.Redacted<string> | string
const reveal = (secret: Secret) => (typeof secret === "string" ? secret : Redacted.value(secret))
const bytesOf = (body: string | Uint8Array) => (typeof body === "string" ? utf8(body) : body)

/** The hex `v1` signature of `${timestamp}.${body}` under `secret`. */
export const stripeV1Signature = (secret: Secret, timestamp: number, body: string | Uint8Array) =>
  Effect.flatMap(importHmacKey(reveal(secret)), (key) =>
    Effect.map(hmacSha256(key, utf8(`${timestamp}.`), bytesOf(body)), toHex))

/** Options of `stripeSignatureHeader` and `signStripeRequest`. */
export interface SignOptions {
  /** Unix seconds; default now on Effect's Clock. */
  readonly timestamp?: number
  /** More secrets to add a `v1` for (a rolled secret still active). */
  readonly alsoSignWith?: ReadonlyArray<Secret>
}

/** A `Stripe-Signature` value: `t=…,v1=…` with one `v1` per secret. */
export const stripeSignatureHeader = (secret: Secret, body: string | Uint8Array, options: SignOptions = {}) =>
  Effect.gen(function*() {
    const timestamp = options.timestamp ?? Math.floor((yield* Clock.currentTimeMillis) / 1000)
    const signatures = yield* Effect.forEach([secret, ...(options.alsoSignWith ?? [])], (s) =>
      stripeV1Signature(s, timestamp, body))
    return [`t=${timestamp}`, ...signatures.map((signature) => `v1=${signature}`)].join(",")
  })

/** A request carrying `body` as Stripe would send it, signed with `secret`. */
export const signStripeRequest = (secret: Secret, body: string | Uint8Array, options: SignOptions = {}) =>
  Effect.map(
    stripeSignatureHeader(secret, body, options),
    (header) =>
      WebhookRequest.fromParts(bytesOf(body), {
        "content-type": "application/json; charset=utf-8",
        [SIGNATURE_HEADER]: header
      })
  )

/** The fields of a Checkout Session the tests vary. */
export interface CheckoutSessionFields {
  readonly id: string
  readonly paymentStatus?: "paid" | "unpaid" | "no_payment_required"
  readonly email?: string | null
  readonly amountTotal?: number
  readonly currency?: string
  readonly metadata?: Record<string, string>
}

/** The JSON body of a Checkout Session event, shaped as Stripe sends it (with fields hookgate ignores). */
export const checkoutSessionEvent = (
  eventId: string,
  type:
    | "checkout.session.completed"
    | "checkout.session.async_payment_succeeded"
    | "checkout.session.async_payment_failed"
    | "checkout.session.expired",
  session: CheckoutSessionFields,
  /** When Stripe created the event, unix seconds (what List Events orders and filters by). */
  created = 1_760_000_000
): string =>
  JSON.stringify({
    id: eventId,
    object: "event",
    api_version: "2025-09-30.clover",
    created,
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
    data: {
      object: {
        id: session.id,
        object: "checkout.session",
        mode: "payment",
        status: type === "checkout.session.expired" ? "expired" : "complete",
        payment_status: session.paymentStatus ?? (type === "checkout.session.async_payment_failed" ? "unpaid" : "paid"),
        amount_subtotal: session.amountTotal ?? 1900,
        amount_total: session.amountTotal ?? 1900,
        currency: session.currency ?? "usd",
        client_reference_id: null,
        customer: null,
        customer_details: { email: session.email === undefined ? "buyer@example.com" : session.email, name: "Ada Buyer" },
        customer_email: null,
        metadata: session.metadata ?? {},
        payment_intent: "pi_3Q0000000000000000000000",
        success_url: "https://example.com/thanks"
      }
    }
  })

export { type RecordedRequest, type StripeEventsServer, type StripeFault, startStripeEventsServer } from "./testing/events-server.js"
