// Named here so the inferred types of the helpers below can be emitted.
export type { Mailer } from "@hookgate/core/mail"
import { type Lease, type OrderStore, receive } from "@hookgate/core"
import type { AlertStore } from "@hookgate/core/alerts"
import { type WebhookProvider, WebhookRequest } from "@hookgate/core/providers"
import { failureOf, type ScriptedMailerOptions, TestPipeline } from "@hookgate/testing"
import { type Effect, type Layer, Redacted } from "effect"
import { SqliteStore } from "@hookgate/store-sqlite"
import { LemonSqueezy } from "../src/index.js"

// Lemon Squeezy's signing secrets are whatever the merchant typed: 6 to 40 characters.
export const SECRET = "ls_signing_secret_4kxVQ7bYJp2mZ0cN8rT5"
export const OLD_SECRET = "ls_rolled_Qm9vZ2xlIGlzIG5vdCBh"

export const makeProvider = (secrets: ReadonlyArray<string> = [SECRET], options: Omit<LemonSqueezy.Options, "secrets"> = {}) =>
  LemonSqueezy.make({ ...options, secrets: secrets.map((s) => Redacted.make(s)) as [Redacted.Redacted<string>] })

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

export const receiveLemon = (request: WebhookRequest) => receive("lemonsqueezy", request)
