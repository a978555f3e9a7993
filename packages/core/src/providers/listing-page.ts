import type * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import { ReconcileError, type ReconcileFailure } from "./reconcile.js"

/**
 * The retries of one listing page after a 429, a 5xx or a network failure: five more
 * tries from 500 ms, doubling, jittered (a GET is safe to repeat).
 */
export const LISTING_RETRY: Schedule.Schedule<unknown, unknown> = Schedule.exponential("500 millis").pipe(
  Schedule.jittered,
  Schedule.intersect(Schedule.recurs(5))
)

/** A failure worth another try (429, 5xx, the network, no answer in time). */
class Transient extends Data.TaggedError("Transient")<{ readonly detail: string; readonly requestId?: string }> {}

/** How one provider's listing reads a page. */
export interface ListingPageOptions {
  /** The provider's name (`creem`), for errors. */
  readonly provider: string
  /** The provider as the owner knows it (`Creem`), for details. */
  readonly label: string
  /** The setting holding the key, named by an auth error (never the key). */
  readonly setting: string
  /** What the key must be allowed to read, for an auth error's detail. */
  readonly needs: string
  /** The provider's request id of an answer (a header, or the error body's trace id). */
  readonly requestIdOf: (response: HttpClientResponse.HttpClientResponse, body: unknown) => string | undefined
  readonly retry?: Schedule.Schedule<unknown, unknown> | undefined
  /** One page, from connect to the last byte. Default 20 s. */
  readonly timeout?: Duration.DurationInput | undefined
}

/** The JSON of a 200 answer, with the provider's request id. */
export interface ListingAnswer {
  readonly json: unknown
  readonly requestId: string | undefined
}

/** A listing's error, with the request id when the provider gave one and the setting for an auth failure. */
export const listingError = (options: ListingPageOptions, reason: ReconcileFailure, detail: string, requestId?: string) =>
  new ReconcileError({
    provider: options.provider,
    reason,
    detail,
    ...(requestId === undefined ? {} : { requestId }),
    ...(reason === "auth" ? { setting: options.setting } : {})
  })

/**
 * One GET of a provider's list API: 429, 5xx, network failures and time-outs retried on
 * `retry`; 401/403 an `auth` error naming the setting; any other non-200 `unavailable`.
 * The caller decodes the JSON (a page that does not decode is its `malformed` error).
 */
export const getListingPage = (
  options: ListingPageOptions,
  request: Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError>
): Effect.Effect<ListingAnswer, ReconcileError> => {
  const once = request.pipe(
    Effect.timeoutFail({ duration: options.timeout ?? Duration.seconds(20), onTimeout: () => new Transient({ detail: "no answer in time" }) }),
    Effect.catchTags({
      RequestError: (error) => Effect.fail(new Transient({ detail: `the request failed (${error.reason})` })),
      ResponseError: (error) => Effect.fail(new Transient({ detail: `the answer could not be read (${error.reason})` }))
    }),
    Effect.flatMap((response) =>
      Effect.flatMap(Effect.orElseSucceed(response.json, () => undefined as unknown), (json): Effect.Effect<ListingAnswer, Transient | ReconcileError> => {
        const requestId = options.requestIdOf(response, json)
        const withId = requestId === undefined ? {} : { requestId }
        if (response.status === 429 || response.status >= 500) {
          return Effect.fail(new Transient({ detail: `${options.label} answered ${response.status}`, ...withId }))
        }
        if (response.status === 401 || response.status === 403) {
          return Effect.fail(listingError(options, "auth", `${options.label} answered ${response.status}: the key is wrong, revoked, or cannot ${options.needs}`, requestId))
        }
        if (response.status !== 200) {
          return Effect.fail(listingError(options, "unavailable", `${options.label} answered ${response.status}`, requestId))
        }
        return Effect.succeed({ json, requestId })
      })
    )
  )
  return once.pipe(
    Effect.retry({ schedule: options.retry ?? LISTING_RETRY, while: (e) => e._tag === "Transient" }),
    Effect.catchTag("Transient", (e) => Effect.fail(listingError(options, "unavailable", `${e.detail}, after retries`, e.requestId)))
  )
}
