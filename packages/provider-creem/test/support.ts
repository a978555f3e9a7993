// Named here so the inferred types of the helpers below can be emitted.
export type { Mailer } from "@hookgate/core/mail"
import { type Lease, type OrderStore, receive } from "@hookgate/core"
import type { AlertStore } from "@hookgate/core/alerts"
import { type WebhookProvider, WebhookRequest } from "@hookgate/core/providers"
import { failureOf, type ScriptedMailerOptions, TestPipeline } from "@hookgate/testing"
import { type Effect, type Layer, Redacted } from "effect"
import { SqliteStore } from "@hookgate/store-sqlite"
import { expect } from "vitest"
import { Creem } from "../src/index.js"

export const SECRET = "whsec_4kxVQ7bYJp2mZ0cN8rT5sW1eH9aF3dL6"
export const OLD_SECRET = "whsec_rolled_Qm9vZ2xlIGlzIG5vdCBhIHNlY3JldA"

export const makeProvider = (secrets: ReadonlyArray<string> = [SECRET], options: Omit<Creem.Options, "secrets"> = {}) =>
  Creem.make({ ...options, secrets: secrets.map((s) => Redacted.make(s)) as [Redacted.Redacted<string>] })

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

export const receiveCreem = (request: WebhookRequest) => receive("creem", request)

/** Asserts an error's text carries neither the secrets nor any of the given signatures. */
export const expectNoSecrets = (error: unknown, ...forbidden: ReadonlyArray<string>) => {
  const text = `${String(error)} ${JSON.stringify(error)}`
  for (const value of [SECRET, OLD_SECRET, ...forbidden]) expect(text).not.toContain(value)
}
