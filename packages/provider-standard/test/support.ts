// Named here so the inferred types of the helpers below can be emitted.
export type { Mailer } from "@hookgate/core/mail"
import { type Lease, type OrderStore, receive } from "@hookgate/core"
import type { AlertStore } from "@hookgate/core/alerts"
import { fulfilOn, type WebhookProvider, WebhookRequest } from "@hookgate/core/providers"
import { failureOf, type ScriptedMailerOptions, TestPipeline } from "@hookgate/testing"
import { type Effect, type Layer, Redacted, Schema, TestClock } from "effect"
import { SqliteStore } from "@hookgate/store-sqlite"
import { expect } from "vitest"
import { StandardWebhooks } from "../src/index.js"

// whsec_ and the base64 of 32 fixed bytes; a second for rotation.
export const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
export const OLD_SECRET = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD"
/** Polar's secrets are used as raw UTF-8 bytes. */
export const RAW_SECRET = "polar_whs_3xAmPlE5eCr3tV4lu3"

export const NOW_S = 1_760_000_000
export const NOW_MS = NOW_S * 1000
export const atNow = TestClock.setTime(NOW_MS)

/** A Polar-like `order.paid`: only the fields the mapping reads. */
export const OrderPaid = Schema.Struct({
  data: Schema.Struct({
    id: Schema.String,
    status: Schema.String,
    total_amount: Schema.Number,
    currency: Schema.String,
    product_id: Schema.optional(Schema.NullOr(Schema.String)),
    customer: Schema.Struct({ email: Schema.String }),
    metadata: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String }))
  })
})

export const polarFulfilment = fulfilOn({
  types: ["order.paid"],
  schema: OrderPaid,
  fulfilment: ({ data }) =>
    data.status !== "paid" ? null : {
      orderId: data.id,
      email: data.customer.email,
      product: data.product_id ?? null,
      amount: data.total_amount,
      currency: data.currency,
      ...(data.metadata === undefined ? {} : { metadata: data.metadata })
    }
})

export const orderPaid = (orderId: string, fields: { email?: string; amount?: number; status?: string } = {}) =>
  JSON.stringify({
    type: "order.paid",
    timestamp: "2025-10-09T08:53:20.000Z",
    data: {
      id: orderId,
      status: fields.status ?? "paid",
      total_amount: fields.amount ?? 2900,
      currency: "usd",
      product_id: "prod_ebook",
      customer: { id: "cus_1", email: fields.email ?? "buyer@example.com", name: "Ada" },
      metadata: { source: "landing" },
      created_at: "2025-10-09T08:53:19.000Z"
    }
  })

export const makeProvider = (
  secrets: ReadonlyArray<string> = [SECRET],
  options: Partial<Omit<StandardWebhooks.Options, "secrets">> = {}
) =>
  StandardWebhooks.make({
    name: "polar",
    fulfilment: polarFulfilment,
    ...options,
    secrets: secrets.map((s) => Redacted.make(s)) as [Redacted.Redacted<string>]
  })

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

export const receivePolar = (request: WebhookRequest) => receive("polar", request)

/** Asserts an error's text carries neither the secrets nor any of the given signatures. */
export const expectNoSecrets = (error: unknown, ...forbidden: ReadonlyArray<string>) => {
  const text = `${String(error)} ${JSON.stringify(error)}`
  for (const value of [SECRET, SECRET.slice(6), OLD_SECRET, RAW_SECRET, ...forbidden]) expect(text).not.toContain(value)
}
