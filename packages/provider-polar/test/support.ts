// Named here so the inferred types of the helpers below can be emitted.
export type { Mailer } from "@hookgate/core/mail"
import { type Lease, type OrderStore, receive } from "@hookgate/core"
import type { AlertStore } from "@hookgate/core/alerts"
import { type WebhookProvider, WebhookRequest } from "@hookgate/core/providers"
import { failureOf, type ScriptedMailerOptions, TestPipeline } from "@hookgate/testing"
import { type Effect, type Layer, Redacted, TestClock } from "effect"
import { SqliteStore } from "@hookgate/store-sqlite"
import { Polar } from "../src/index.js"

// Polar's secrets are used as their UTF-8 bytes (its SDK base64-encodes them for standardwebhooks).
export const SECRET = "polar_whs_3xAmPlE5eCr3tV4lu3Qm9vZ2xl"
export const OLD_SECRET = "polar_whs_r0ll3dS3cr3tIsStillActive"

export const NOW_S = 1_760_000_000
export const atNow = TestClock.setTime(NOW_S * 1000)

export const makeProvider = (secrets: ReadonlyArray<string> = [SECRET], options: Omit<Polar.Options, "secrets"> = {}) =>
  Polar.make({ ...options, secrets: secrets.map((s) => Redacted.make(s)) as [Redacted.Redacted<string>] })

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

export const receivePolar = (request: WebhookRequest) => receive("polar", request)
