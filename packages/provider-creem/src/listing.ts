import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import {
  type DetectOnly,
  getListingPage,
  type ListedPayment,
  listingError,
  type ListingPageOptions,
  reconcileDetectOnly,
  type ReconcileError
} from "@hookgate/core/providers"
import * as Chunk from "effect/Chunk"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"

/** Creem's production API. */
export const PRODUCTION_API = "https://api.creem.io"
/** Creem's test-mode API (keys `creem_test_…`). */
export const TEST_API = "https://test-api.creem.io"
/** The page size asked for. */
export const PAGE_SIZE = 100

/** Why a Creem order cannot be sent from the API, as the owner alert says it. */
export const UNSENDABLE_REASON = "their checkout metadata is not available"

/** How hookgate reaches Creem's transactions search. */
export interface ApiOptions {
  /** An API key (`creem_…`, or `creem_test_…` in test mode); kept `Redacted`. */
  readonly apiKey: Redacted.Redacted<string>
  /** Default: `https://test-api.creem.io` for a `creem_test_` key, else `https://api.creem.io`; a local stand-in in tests. */
  readonly baseUrl?: string | undefined
  /** The setting that holds the key, named in an auth error (never the key). Default `CREEM_API_KEY`. */
  readonly setting?: string
  /** The retries after a 429, a 5xx or a network failure (default core's `LISTING_RETRY`). */
  readonly retry?: Schedule.Schedule<unknown, unknown>
  /** One page, from connect to the last byte. Default 20 s. */
  readonly timeout?: Duration.DurationInput
  /** The provider's name (order key prefix). Default `creem`. */
  readonly name?: string
}

/** The base URL a key speaks to when none is set: test-mode keys to the test API. */
export const defaultBase = (apiKey: Redacted.Redacted<string>) =>
  Redacted.value(apiKey).startsWith("creem_test_") ? TEST_API : PRODUCTION_API

// Creem documents `created_at` of a transaction as a number (epoch ms); an ISO string is read too.
const Millis = Schema.Union(Schema.Number, Schema.transform(Schema.String, Schema.Number, {
  strict: true,
  decode: (s) => Date.parse(s),
  encode: (n) => new Date(n).toISOString()
}))
const Transaction = Schema.Struct({
  id: Schema.String,
  status: Schema.String,
  created_at: Millis,
  amount: Schema.optional(Schema.Number),
  amount_paid: Schema.optional(Schema.NullOr(Schema.Number)),
  currency: Schema.optional(Schema.String),
  order: Schema.optional(Schema.NullOr(Schema.String)),
  customer: Schema.optional(Schema.NullOr(Schema.String))
})
const Page = Schema.Struct({
  items: Schema.Array(Schema.Unknown),
  pagination: Schema.Struct({ next_page: Schema.optional(Schema.NullOr(Schema.Number)) })
})
const Customer = Schema.Struct({ email: Schema.String })
const TraceId = Schema.Struct({ trace_id: Schema.String })
const decodePage = (input: unknown) => Schema.decodeUnknownEither(Page)(input)
const decodeTransaction = (input: unknown) => Schema.decodeUnknownEither(Transaction)(input)
const decodeCustomer = (input: unknown) => Schema.decodeUnknownEither(Customer)(input)
const decodeTraceId = (input: unknown) => Schema.decodeUnknownOption(TraceId)(input)

// Creem's error bodies carry a `trace_id`; a proxy in front may set `x-request-id`.
const requestIdOf = (response: HttpClientResponse.HttpClientResponse, body: unknown) =>
  Option.getOrUndefined(Option.map(decodeTraceId(body), (b) => b.trace_id)) ?? response.headers["x-request-id"]

/**
 * Creem's paid orders since a time, through `GET /v1/transactions/search?page_number=…&page_size=100`
 * (header `x-api-key`), page after page while `pagination.next_page` names one. A
 * transaction pays when its `status` is `paid` and it names an `order`: its order key is
 * `creem:<order>`, the key the `checkout.completed` webhook gives. The search takes no
 * time filter: pages are read until one lies wholly before `since` while the listing has
 * come newest first (else to the end). The buyer's email of an order hookgate lacks is
 * one `GET /v1/customers?customer_id=…` each.
 */
export const makeListing = (options: ApiOptions): Effect.Effect<DetectOnly, never, HttpClient.HttpClient> =>
  Effect.map(HttpClient.HttpClient, (http) => {
    const provider = options.name ?? "creem"
    const client = http.pipe(
      HttpClient.mapRequest(HttpClientRequest.prependUrl(options.baseUrl ?? defaultBase(options.apiKey))),
      HttpClient.mapRequest(HttpClientRequest.setHeader("x-api-key", Redacted.value(options.apiKey))),
      HttpClient.mapRequest(HttpClientRequest.acceptJson)
    )
    const page: ListingPageOptions = {
      provider,
      label: "Creem",
      setting: options.setting ?? "CREEM_API_KEY",
      needs: "read transactions and customers",
      requestIdOf,
      retry: options.retry,
      timeout: options.timeout
    }
    const fetchPage = (number: number) =>
      Effect.flatMap(
        getListingPage(page, client.get("/v1/transactions/search", { urlParams: { page_number: number, page_size: PAGE_SIZE } })),
        ({ json, requestId }) => {
          const decoded = Either.flatMap(decodePage(json), (p) =>
            Either.map(Either.all(p.items.map((item) => decodeTransaction(item))), (items) => ({ items, next: p.pagination.next_page ?? null })))
          return Either.isLeft(decoded)
            ? Effect.fail(listingError(page, "malformed", `page ${number} of /v1/transactions/search does not decode`, requestId))
            : Effect.succeed(decoded.right)
        }
      )
    const toListed = (t: typeof Transaction.Type): ListedPayment => ({
      orderKey: `${provider}:${t.order ?? t.id}`,
      id: t.id,
      created: t.created_at,
      paid: t.status === "paid" && typeof t.order === "string" && t.order !== "",
      ...(t.amount_paid ?? t.amount) === undefined ? {} : { amount: (t.amount_paid ?? t.amount)! },
      ...(t.currency === undefined ? {} : { currency: t.currency }),
      ...(typeof t.customer === "string" ? { customer: t.customer } : {})
    })
    // State: the next page's number, and the newest `created` so far were the pages newest first (else null).
    type State = { readonly number: number; readonly descendingFrom: number | null }
    const list = (since: number) =>
      Stream.paginateChunkEffect<State, ListedPayment, ReconcileError, never>({ number: 1, descendingFrom: Infinity }, (state) =>
        Effect.map(fetchPage(state.number), ({ items, next }) => {
          const listed = items.map(toListed)
          const created = listed.map((p) => p.created)
          const descending = state.descendingFrom !== null &&
            created.every((c, i) => c <= (i === 0 ? state.descendingFrom! : created[i - 1]!))
          const pastWindow = descending && created.length > 0 && created.at(-1)! < since
          const more = next !== null && next > state.number && !pastWindow
          return [
            Chunk.fromIterable(listed.filter((p) => p.created >= since)),
            more ? Option.some({ number: next, descendingFrom: descending ? (created.at(-1) ?? state.descendingFrom) : null }) : Option.none()
          ] as const
        })
      )
    const emailOf = (payment: ListedPayment) =>
      payment.customer === undefined ? Effect.succeedNone : Effect.flatMap(
        getListingPage(page, client.get("/v1/customers", { urlParams: { customer_id: payment.customer } })),
        ({ json }) => Effect.succeed(Option.map(Either.getRight(decodeCustomer(json)), (c) => c.email))
      )
    return reconcileDetectOnly({ label: "Creem", reason: UNSENDABLE_REASON, list, emailOf })
  })
