import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"

/** Paddle Billing's API, live. */
export const PRODUCTION_API = "https://api.paddle.com"
/** Paddle Billing's sandbox API. */
export const SANDBOX_API = "https://sandbox-api.paddle.com"

/** How long one `GET /customers/{id}` may take. Paddle waits 5 s for a webhook's answer, so it is short. */
export const DEFAULT_TIMEOUT: Duration.Duration = Duration.seconds(2)

/**
 * The retries of one fetch after a 408, 429 or 5xx answer, a timeout or a
 * network failure: three more tries, 100, 200 and 400 ms apart (jittered), so a
 * webhook is still answered within Paddle's 5 s. After them the webhook is
 * answered 500 and Paddle delivers it again later.
 */
export const DEFAULT_RETRY: Schedule.Schedule<unknown, unknown> = Schedule.exponential("100 millis").pipe(
  Schedule.jittered,
  Schedule.intersect(Schedule.recurs(3))
)

/** How hookgate reaches Paddle's API. */
export interface ApiOptions {
  /** A Paddle API key with `customer.read` (`pdl_live_apikey_…` or `pdl_sdbx_apikey_…`); kept `Redacted`. */
  readonly apiKey: Redacted.Redacted<string>
  /** Default `https://api.paddle.com`; `SANDBOX_API` for the sandbox, a local stand-in in tests. */
  readonly baseUrl?: string
  /** One request, from connect to the last byte (default 2 s). */
  readonly timeout?: Duration.DurationInput
  /** The retries after a transient failure (default `DEFAULT_RETRY`). */
  readonly retry?: Schedule.Schedule<unknown, unknown>
}

/** The part of `GET /customers/{customer_id}`'s answer hookgate reads. */
const CustomerAnswer = Schema.Struct({ data: Schema.Struct({ id: Schema.String, email: Schema.String }) })
/** Paddle's error body. */
const ErrorAnswer = Schema.Struct({ error: Schema.Struct({ code: Schema.String }) })
const errorCodeOf = (body: unknown): string | undefined => {
  const decoded = Schema.decodeUnknownOption(ErrorAnswer)(body)
  return decoded._tag === "Some" ? decoded.value.error.code : undefined
}

/** Why a customer's email could not be had; the detail never holds the API key. */
export class CustomerUnavailable extends Data.TaggedError("CustomerUnavailable")<{ readonly detail: string }> {}

const CUSTOMER_ID = /^ctm_[a-z\d]{26}$/

/**
 * `customerEmail(id)`: the customer's email from `GET /customers/{id}` with the
 * API key as Bearer token; transient failures retried on `options.retry`. Any
 * other answer (403 `invalid_token`, 404 `not_found`, a body that does not
 * decode) fails at once with a `CustomerUnavailable` saying which.
 */
export const makeCustomerEmail = (options: ApiOptions) =>
  Effect.map(HttpClient.HttpClient, (http) => {
    const client = http.pipe(
      HttpClient.mapRequest(HttpClientRequest.prependUrl(options.baseUrl ?? PRODUCTION_API)),
      HttpClient.mapRequest(HttpClientRequest.bearerToken(Redacted.value(options.apiKey))),
      HttpClient.mapRequest(HttpClientRequest.acceptJson),
      HttpClient.transformResponse(Effect.timeout(options.timeout ?? DEFAULT_TIMEOUT)),
      HttpClient.retryTransient({ schedule: options.retry ?? DEFAULT_RETRY })
    )
    return (customerId: string): Effect.Effect<string, CustomerUnavailable> => {
      if (!CUSTOMER_ID.test(customerId)) {
        return Effect.fail(new CustomerUnavailable({ detail: `customer_id ${JSON.stringify(customerId)} is not a Paddle customer id` }))
      }
      const unavailable = (why: string) => new CustomerUnavailable({ detail: `customer ${customerId} could not be fetched: ${why}` })
      return client.get(`/customers/${customerId}`).pipe(
        Effect.flatMap((response) =>
          response.status === 200
            ? Effect.mapError(
              HttpClientResponse.schemaBodyJson(CustomerAnswer)(response),
              () => unavailable("Paddle's answer has no data.email")
            )
            : Effect.flatMap(Effect.orElseSucceed(response.json, () => undefined), (body) => {
              const code = errorCodeOf(body)
              return Effect.fail(unavailable(`Paddle answered ${response.status}${code === undefined ? "" : ` ${code}`}`))
            })
        ),
        Effect.map((answer) => answer.data.email),
        Effect.catchTags({
          RequestError: (error) => Effect.fail(unavailable(`the request failed (${error.reason})`)),
          ResponseError: (error) => Effect.fail(unavailable(`the answer could not be read (${error.reason})`)),
          TimeoutException: () => Effect.fail(unavailable("no answer in time"))
        })
      )
    }
  })
