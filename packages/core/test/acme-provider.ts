import {
  DEFAULT_TOLERANCE,
  fromHex,
  fulfilOn,
  malformedHeader,
  missingHeader,
  ProviderKit,
  Providers,
  type SecretsInput,
  utf8,
  type WebhookRequest
} from "@hookgate/core/providers"
import { type Duration, Either, Schema } from "effect"

// Acme signs `${t}.${body}` and sends `acme-signature: t=<unix seconds>,v1=<hex HMAC-SHA256>`.
const parseSignature = (request: WebhookRequest) => {
  const header = request.header("acme-signature")?.trim()
  if (header === undefined || header === "") return missingHeader("no acme-signature header")
  const match = /^t=(\d{1,12}),v1=([0-9a-f]{64})$/.exec(header)
  if (match === null) return malformedHeader("acme-signature is not t=<unix s>,v1=<64 hex digits>")
  return Either.right({ timestamp: Number(match[1]), signatures: [fromHex(match[2]!)!] })
}

// Name only the fields you read: fields Acme adds later then decode as before.
const Envelope = Schema.Struct({ id: Schema.NonEmptyString, type: Schema.NonEmptyString })
const OrderPaid = Schema.Struct({
  order: Schema.Struct({ ref: Schema.String, buyer: Schema.String, cents: Schema.Int, currency: Schema.String })
})

/** The Acme provider: a parser, the signed bytes, an envelope, a fulfilment. The kit runs the checks. */
export const make = (options: { readonly secrets: SecretsInput; readonly tolerance?: Duration.DurationInput }) =>
  ProviderKit.make({
    name: "acme",
    secrets: options.secrets,
    parseSignature,
    signedContent: (signature, request) => [utf8(`${signature.timestamp}.`), request.body],
    tolerance: options.tolerance ?? DEFAULT_TOLERANCE,
    envelope: Envelope,
    fulfilment: fulfilOn({
      types: ["order.paid"],
      schema: OrderPaid,
      fulfilment: ({ order }) => ({ orderId: order.ref, email: order.buyer, amount: order.cents, currency: order.currency })
    })
  })

/** Mounts it: `Providers.layer(Acme.layer({ secrets }))`. */
export const layer = (options: { readonly secrets: SecretsInput; readonly tolerance?: Duration.DurationInput }) =>
  Providers.register(make(options))
