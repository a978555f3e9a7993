// Named here so the inferred types of the helpers below can be emitted.
export type { Mailer } from "@hookgate/core/mail"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { type Lease, type OrderStore, receive } from "@hookgate/core"
import type { AlertStore } from "@hookgate/core/alerts"
import { type WebhookProvider, WebhookRequest } from "@hookgate/core/providers"
import { failureOf, type ScriptedMailerOptions, TestPipeline } from "@hookgate/testing"
import { SqliteStore } from "@hookgate/store-sqlite"
import { Effect, type Layer, Redacted, Schedule, TestClock } from "effect"
import { Paddle } from "../src/index.js"
import { startPaddleTestServer } from "../src/testing/index.js"

// Notification destination secrets look like this (Paddle's docs show `pdl_ntfset_<id>_<key>`).
export const SECRET = "pdl_ntfset_01gkpjp8bkm3tm53kdgkx6sms7_6h3qd3uFSi9YCD3OLYAShQI90XTI5vEI"
export const OLD_SECRET = "pdl_ntfset_01gkpjp8bkm3tm53kdgkx6sms7_r0tat3dK3yStillActiveF0rNow24"

export const NOW_S = 1_760_000_000
export const atNow = TestClock.setTime(NOW_S * 1000)

/**
 * The stand-in for Paddle's customer API, on 127.0.0.1, for the test files of one vitest
 * worker: they share this module (vitest.config.ts), so none closes it; it ends with the worker.
 */
export const server = await startPaddleTestServer()

const customers = new Map<string, string>()
/** The customer id of a customer with this email, added to the stand-in the first time. */
export const customerFor = (email: string): string => {
  const known = customers.get(email)
  if (known !== undefined) return known
  const id = server.addCustomer({ email })
  customers.set(email, id)
  return id
}

/** Paddle's provider against the stand-in; retries without delays unless `retry` is given (TestClock would hold them). */
export const makeProvider = (
  secrets: ReadonlyArray<string | Redacted.Redacted<string>> = [SECRET],
  options: Partial<Omit<Paddle.Options, "secrets">> = {}
) =>
  Paddle.make({
    apiKey: Redacted.make(server.apiKey),
    baseUrl: server.url,
    retry: Schedule.recurs(3),
    ...options,
    secrets: secrets.map((s) => (typeof s === "string" ? Redacted.make(s) : s)) as [Redacted.Redacted<string>]
  }).pipe(Effect.provide(FetchHttpClient.layer))

export const requestOf = (body: string | Uint8Array, headers: Iterable<readonly [string, string]> | Record<string, string>) =>
  WebhookRequest.fromParts(typeof body === "string" ? new TextEncoder().encode(body) : body, headers)

export { failureOf }

/** The core pipeline on a fresh in-memory SQLite store, with the scripted mailer and the test renderer. */
export const pipeline = (provider: Effect.Effect<WebhookProvider>, options: { readonly mailer?: ScriptedMailerOptions } = {}) =>
  TestPipeline.layer({
    store: SqliteStore.layer({ filename: ":memory:" }) as Layer.Layer<OrderStore | Lease | AlertStore, unknown>,
    providers: [provider],
    ...(options.mailer ? { mailer: options.mailer } : {})
  })

export const receivePaddle = (request: WebhookRequest) => receive("paddle", request)

/** How many requests the stand-in has answered for this customer. */
export const fetchesOf = (customerId: string) => server.requests.filter((r) => r.path === `/customers/${customerId}`).length
