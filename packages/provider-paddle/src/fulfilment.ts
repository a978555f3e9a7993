import type { Fulfilment } from "@hookgate/core"
import { fulfilOn, MalformedPayload, metadataStrings, type StoredFulfilment, VerifiedEvent, type WebhookProvider } from "@hookgate/core/providers"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { CustomerUnavailable } from "./customers.js"
import { PAID_STATUSES, PAYING_EVENT_TYPES, PaidTransactionWithCustomer, TransactionStatus } from "./events.js"

/** The metadata key the customer id is kept under, beside the email fetched for it. */
export const CUSTOMER_ID_KEY = "paddle_customer_id"

/** The mapping, once the customer's email sits beside the transaction (`customer.email`). */
const withCustomer = fulfilOn({
  types: PAYING_EVENT_TYPES,
  schema: PaidTransactionWithCustomer,
  objectIdAt: ["data", "id"],
  fulfilment: ({ customer, data: transaction }) => ({
    orderId: transaction.id,
    email: customer.email,
    product: transaction.items?.[0]?.price?.product_id ?? null,
    amount: transaction.details.totals.grand_total,
    currency: transaction.currency_code,
    metadata: { ...metadataStrings(transaction.custom_data), [CUSTOMER_ID_KEY]: transaction.customer_id }
  })
})

const decodeStatus = (input: unknown) => Schema.decodeUnknownOption(TransactionStatus)(input)
const CustomerOf = Schema.Struct({ data: Schema.Struct({ id: Schema.String, customer_id: Schema.NonEmptyString }) })
const decodeCustomerOf = (input: unknown) => Schema.decodeUnknownOption(CustomerOf)(input)

/** The email already stored for this customer, when the stored order was made for the same one. */
const storedEmail = (context: StoredFulfilment | undefined, customerId: string): Option.Option<string> =>
  Option.flatMap(context?.stored ?? Option.none<Fulfilment>(), (stored) =>
    stored.metadata[CUSTOMER_ID_KEY] === customerId ? Option.some(stored.email) : Option.none())

/** The order key a paying event would make, read leniently: `receive` looks the stored order up under it. */
export const orderKeyOf: NonNullable<WebhookProvider["orderKeyOf"]> = (event) => {
  if (!PAYING_EVENT_TYPES.has(event.type)) return undefined
  const data = (event.payload as { readonly data?: { readonly id?: unknown } } | null)?.data
  return typeof data?.id === "string" && data.id !== "" ? `${event.provider}:${data.id}` : undefined
}

/**
 * Maps a verified Paddle event to the order it pays for. `transaction.paid` and
 * `transaction.completed` whose status is `paid` or `completed` become
 * `<provider>:<transaction id>`; every other type, and a transaction in any other
 * status, is `None`. The transaction carries only `customer_id`: the email is
 * the stored order's when one is stored for the same customer (a replay), and is
 * fetched with `customerEmail` otherwise. A fetch that fails is `MalformedPayload`
 * naming why (answered 500 `unfulfillable`, with an owner alert; Paddle retries).
 */
export const makeFulfilment = (customerEmail: (customerId: string) => Effect.Effect<string, CustomerUnavailable>) =>
(event: VerifiedEvent, context?: StoredFulfilment): Effect.Effect<Option.Option<Fulfilment>, MalformedPayload> => {
  if (!PAYING_EVENT_TYPES.has(event.type)) return Effect.succeedNone
  const status = decodeStatus(event.payload)
  if (Option.isSome(status) && !PAID_STATUSES.has(status.value.data.status)) return Effect.succeedNone
  const named = decodeCustomerOf(event.payload)
  // Without a readable status, transaction or customer id, the mapping says what is missing.
  if (Option.isNone(status) || Option.isNone(named)) return withCustomer(event)
  const { customer_id: customerId, id: transactionId } = named.value.data
  const email = Option.match(storedEmail(context, customerId), {
    onSome: Effect.succeed,
    onNone: () =>
      Effect.mapError(customerEmail(customerId), (error) =>
        new MalformedPayload({ provider: event.provider, detail: error.detail, objectId: transactionId }))
  })
  return Effect.flatMap(email, (email) =>
    withCustomer(
      new VerifiedEvent({ provider: event.provider, id: event.id, type: event.type, payload: { ...(event.payload as object), customer: { email } } }, true)
    ))
}
