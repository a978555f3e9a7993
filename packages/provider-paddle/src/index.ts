/**
 * @hookgate/provider-paddle: verifies Paddle Billing webhooks (`Paddle-Signature:
 * ts=…;h1=…`, HMAC-SHA256 of `ts:body`, several `h1` while a secret rotates, a
 * timestamp window) and turns a paid transaction into a fulfilment keyed
 * `paddle:<transaction id>`. The transaction names its customer by id only: the
 * email is fetched from Paddle's API (`GET /customers/{id}`) once, through
 * `@effect/platform`'s `HttpClient`, and kept with the order.
 *
 *     import { Paddle } from "@hookgate/provider-paddle"
 *     Providers.layer(Paddle.layerConfig()).pipe(Layer.provide(FetchHttpClient.layer))
 */
export * as Paddle from "./Paddle.js"
