// Named here so the inferred types of the helpers below can be emitted.
export type { Mailer } from "@hookgate/core/mail"
import { type Lease, type OrderStore, receive } from "@hookgate/core"
import type { AlertStore } from "@hookgate/core/alerts"
import { type WebhookProvider, WebhookRequest } from "@hookgate/core/providers"
import { failureOf, type ScriptedMailerOptions, TestPipeline } from "@hookgate/testing"
import { type Effect, type Layer, Redacted, TestClock } from "effect"
import { SqliteStore } from "@hookgate/store-sqlite"
import { expect } from "vitest"
import { Stripe } from "../src/index.js"

export const SECRET = "whsec_test_5f1c0a7e2b9d4c68a1e3f0b2d7c9e4a6"
export const OLD_SECRET = "whsec_test_rolled_0000aaaa1111bbbb2222cccc"
/** 2025-10-09T...: a fixed "now" for TestClock, in ms and in Stripe's unix seconds. */
export const NOW_S = 1_760_000_000
export const NOW_MS = NOW_S * 1000

export const atNow = TestClock.setTime(NOW_MS)

export const makeProvider = (secrets: ReadonlyArray<string> = [SECRET], options: Omit<Stripe.Options, "secrets"> = {}) =>
  Stripe.make({ ...options, secrets: secrets.map((s) => Redacted.make(s)) as [Redacted.Redacted<string>] })

export const requestOf = (body: string | Uint8Array, headers: Iterable<readonly [string, string]> | Record<string, string>) =>
  WebhookRequest.fromParts(typeof body === "string" ? new TextEncoder().encode(body) : body, headers)

export { failureOf }

/** The core pipeline on a fresh in-memory SQLite store (or the given one), with the scripted mailer and the test renderer. */
export const pipeline = (
  provider: Effect.Effect<WebhookProvider>,
  options: { readonly mailer?: ScriptedMailerOptions; readonly store?: Layer.Layer<OrderStore | Lease | AlertStore, unknown> } = {}
) =>
  TestPipeline.layer({
    store: options.store ?? SqliteStore.layer({ filename: ":memory:" }),
    providers: [provider],
    ...(options.mailer ? { mailer: options.mailer } : {})
  })

export const receiveStripe = (request: WebhookRequest) => receive("stripe", request)

/** Asserts an error's text carries neither the secret nor any of the given signatures. */
export const expectNoSecrets = (error: unknown, ...forbidden: ReadonlyArray<string>) => {
  const text = `${String(error)} ${JSON.stringify(error)}`
  for (const value of [SECRET, OLD_SECRET, ...forbidden]) expect(text).not.toContain(value)
}
