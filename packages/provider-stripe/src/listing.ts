import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import {
  getListingPage,
  LISTING_RETRY,
  listingError,
  type ListingPageOptions,
  type PulledEvent,
  type ReconcileError,
  reconcileWith,
  type ReconcileSource,
  VerifiedEvent
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
import { EventEnvelope, PAYING_EVENT_TYPES } from "./events.js"

/** Stripe's API. */
export const PRODUCTION_API = "https://api.stripe.com"

/** The page size asked for: Stripe's largest (`limit` is 1 to 100). */
export const PAGE_SIZE = 100

/**
 * The retries of one page after a 429, a 5xx or a network failure: core's
 * `LISTING_RETRY` (five more tries from 500 ms, doubling, jittered). Stripe asks
 * clients to back off on 429 (its rate limiter) and names 5xx safe to retry for a GET.
 */
export const DEFAULT_RETRY: Schedule.Schedule<unknown, unknown> = LISTING_RETRY

/** How hookgate reaches Stripe's List Events. */
export interface ApiOptions {
  /** A secret key (`sk_…`) or a restricted key (`rk_…`) with read access to Events; kept `Redacted`. */
  readonly apiKey: Redacted.Redacted<string>
  /** Default `https://api.stripe.com`; a local stand-in in tests. */
  readonly baseUrl?: string
  /** The setting that holds the key, named in an auth error (never the key). Default `STRIPE_API_KEY`. */
  readonly setting?: string
  /** The retries after a transient failure (default `DEFAULT_RETRY`). */
  readonly retry?: Schedule.Schedule<unknown, unknown>
  /** One page, from connect to the last byte. Default 20 s. */
  readonly timeout?: Duration.DurationInput
  /** The provider's name (order key prefix). Default `stripe`. */
  readonly name?: string
}

/** A page of `GET /v1/events`: a list object; each event is kept whole, as its webhook would carry it. */
const Page = Schema.Struct({
  object: Schema.Literal("list"),
  has_more: Schema.Boolean,
  data: Schema.Array(Schema.Unknown)
})
const ListedEvent = Schema.extend(EventEnvelope, Schema.Struct({ created: Schema.Int }))
const decodePage = (input: unknown) => Schema.decodeUnknownEither(Page)(input)
const decodeEvent = (input: unknown) => Schema.decodeUnknownEither(ListedEvent)(input)

const withRequestId = (requestId: string | undefined) => (requestId === undefined ? {} : { requestId })

/**
 * Stripe's paying Checkout events created since a time, through List Events:
 * `GET /v1/events?types[]=checkout.session.completed&types[]=checkout.session.async_payment_succeeded&created[gte]=…&limit=100`,
 * then `starting_after=<last id>` while `has_more` (newest first). Each event's
 * whole JSON is the payload, as the webhook's body, so the webhook's fulfilment
 * decodes it. Stripe keeps events 30 days: a window longer than that sees no more.
 */
export const makeListing = (options: ApiOptions): Effect.Effect<ReconcileSource, never, HttpClient.HttpClient> =>
  Effect.map(HttpClient.HttpClient, (http) => {
    const provider = options.name ?? "stripe"
    const setting = options.setting ?? "STRIPE_API_KEY"
    const client = http.pipe(
      HttpClient.mapRequest(HttpClientRequest.prependUrl(options.baseUrl ?? PRODUCTION_API)),
      HttpClient.mapRequest(HttpClientRequest.bearerToken(Redacted.value(options.apiKey))),
      HttpClient.mapRequest(HttpClientRequest.acceptJson)
    )
    const listing: ListingPageOptions = {
      provider,
      label: "Stripe",
      setting,
      needs: "read events",
      requestIdOf: (response) => response.headers["request-id"],
      retry: options.retry ?? DEFAULT_RETRY,
      timeout: options.timeout
    }
    const fail = (reason: "malformed", detail: string, requestId?: string) => listingError(listing, reason, detail, requestId)

    const page = (since: number, startingAfter: Option.Option<string>) => {
      const params: Array<[string, string]> = [
        ...Array.from(PAYING_EVENT_TYPES, (type): [string, string] => ["types[]", type]),
        ["created[gte]", String(Math.max(0, Math.floor(since / 1000)))],
        ["limit", String(PAGE_SIZE)]
      ]
      if (Option.isSome(startingAfter)) params.push(["starting_after", startingAfter.value])
      return Effect.flatMap(getListingPage(listing, client.get("/v1/events", { urlParams: params })), ({ json, requestId }) => {
        const decoded = decodePage(json)
        return Either.isLeft(decoded)
          ? Effect.fail(fail("malformed", "a page of /v1/events is not a list object", requestId))
          : Effect.succeed({ ...decoded.right, ...withRequestId(requestId) })
      })
    }

    const toPulled = (raw: unknown, requestId: string | undefined): Either.Either<PulledEvent, ReconcileError> => {
      const event = decodeEvent(raw)
      if (Either.isLeft(event)) return Either.left(fail("malformed", "an event of /v1/events has no id, type or created", requestId))
      const { created, id, type } = event.right
      return Either.right({ created: created * 1000, event: new VerifiedEvent({ provider, id, type, payload: raw }) })
    }

    return reconcileWith((since) =>
      Stream.paginateChunkEffect(Option.none<string>(), (after) =>
        Effect.flatMap(page(since, after), (answer) =>
          Effect.map(
            Effect.forEach(answer.data, (raw) => toPulled(raw, answer.requestId)),
            (events) => {
              const last = events.at(-1)?.event.id
              // The next state is the next page's `starting_after`; None ends the stream.
              const next = answer.has_more && last !== undefined ? Option.some(Option.some(last)) : Option.none<Option.Option<string>>()
              return [Chunk.fromIterable(events), next] as const
            }
          )
        ))
    )
  })
