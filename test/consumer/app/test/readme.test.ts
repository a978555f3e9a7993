// The README's "Composing layers" module as an app runs it: one runtime, built
// once, fed Stripe requests that the `stripe` package signed.
import { receive } from "@hookgate/core"
import { WebhookRequest } from "@hookgate/core/providers"
import { startResendTestServer, type ResendTestServerShape } from "@hookgate/mailer-resend/testing"
import { checkoutSessionEvent } from "@hookgate/provider-stripe/testing"
import { Effect } from "effect"
import Stripe from "stripe"
import { afterAll, beforeAll, expect, it } from "vitest"
import { onWebhook, runtime } from "../snippets/readme.js"

const STRIPE_SECRET = "whsec_consumer_app_stripe"
const stripe = new Stripe("sk_test_consumer_app")
let resend: ResendTestServerShape

beforeAll(async () => {
  resend = await startResendTestServer()
  Object.assign(process.env, {
    STRIPE_WEBHOOK_SECRET: STRIPE_SECRET,
    // A Stripe-only shop: Creem's secret is not set, and the README's layer leaves Creem out.
    RESEND_API_KEY: resend.apiKey,
    RESEND_BASE_URL: resend.url,
    HOOKGATE_OWNER_EMAIL: "owner@shop.example",
    HOOKGATE_FROM: "hookgate@shop.example"
  })
})

afterAll(async () => {
  await runtime.dispose()
  await resend.close()
})

const payload = checkoutSessionEvent("evt_consumer_1", "checkout.session.completed", {
  id: "cs_test_consumer_1",
  email: "buyer@example.com",
  metadata: { product_id: "licence-pro" }
})
const signed = (body: string) => ({
  "content-type": "application/json",
  "stripe-signature": stripe.webhooks.generateTestHeaderString({ payload: body, secret: STRIPE_SECRET })
})
const bytes = (text: string) => new TextEncoder().encode(text)

it("sends once: sent, then duplicate for the provider's retry", async () => {
  expect(await onWebhook("stripe", bytes(payload), signed(payload))).toEqual({ status: 200, outcome: "Sent" })
  expect(await onWebhook("stripe", bytes(payload), signed(payload))).toEqual({ status: 200, outcome: "Duplicate" })
  expect(resend.emails).toHaveLength(1)
  expect(resend.emails[0]).toMatchObject({ to: ["buyer@example.com"], subject: "Your licence key" })
})

it("rejects with the tagged error itself, not Effect's FiberFailure (README: each with its tag)", async () => {
  const rejected = await onWebhook("nope", bytes(payload), signed(payload)).then(
    () => undefined,
    (error: unknown) => error
  )
  expect(rejected).toMatchObject({ _tag: "UnknownProvider", provider: "nope" })
  expect(String((rejected as Error).name)).not.toMatch(/FiberFailure/)
})

it("refuses a tampered body with a typed SignatureError", async () => {
  const headers = signed(payload)
  const tampered = payload.replace("buyer@example.com", "thief@example.com")
  expect(await onWebhook("stripe", bytes(tampered), headers)).toEqual({ status: 401, outcome: "no_matching_signature" })
  // The app's own handling: the error channel is precise, so catchTag compiles and narrows.
  const reason = await runtime.runPromise(
    receive("stripe", WebhookRequest.fromParts(bytes(tampered), headers)).pipe(
      Effect.map((outcome) => `accepted: ${outcome._tag}`),
      Effect.catchTag("SignatureError", (error) => Effect.succeed(`${error._tag}: ${error.reason}`)),
      Effect.catchAll((error) => Effect.succeed(`other: ${error._tag}`))
    )
  )
  expect(reason).toBe("SignatureError: no_matching_signature")
  expect(resend.emails).toHaveLength(1)
})
