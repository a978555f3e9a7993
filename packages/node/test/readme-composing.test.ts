import { FetchHttpClient, HttpRouter } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { EmailAlerter } from "@hookgate/alerters"
import { receive, Renderer, RetryPolicy } from "@hookgate/core"
import { adminRoutes, toWebHandler, webhookRoutes } from "@hookgate/core/http"
import { OutgoingEmail } from "@hookgate/core/mail"
import { Providers } from "@hookgate/core/providers"
import { Resend } from "@hookgate/mailer-resend"
import { ResendTestServer } from "@hookgate/mailer-resend/testing"
import { Creem } from "@hookgate/provider-creem"
import { Stripe } from "@hookgate/provider-stripe"
import { checkoutSessionEvent, signStripeRequest } from "@hookgate/provider-stripe/testing"
import { SqliteStore } from "@hookgate/store-sqlite"
import { ConfigProvider, Effect, Layer, Redacted } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/**
 * The root README's "Composing layers", verbatim but for the database file, so the
 * documentation cannot drift from the API: the layer sends one webhook's email
 * through Resend (its local test server), and the router snippet serves the
 * webhook and the admin routes behind the token.
 */

const STRIPE_SECRET = "whsec_test_readme_composing_secret"
const filename = join(mkdtempSync(join(tmpdir(), "hookgate-readme-")), "hookgate.db")

// --- from README.md ---------------------------------------------------------
// Your email, from the stored order.
const Template = Renderer.fromFunction((order) =>
  new OutgoingEmail({
    from: "Shop <orders@shop.example>",
    to: order.fulfilment.email,
    subject: "Your licence key",
    text: `Thanks for buying ${order.fulfilment.product}. Order ${order.key}.`
  }))

const Hookgate = Layer.mergeAll(
  SqliteStore.layer({ filename }), // every store port
  Providers.layer(Stripe.layerConfig(), Creem.layerConfig()), // STRIPE_/CREEM_WEBHOOK_SECRET
  Template,
  EmailAlerter.layerConfig(), // the owner hears of capped orders
  RetryPolicy.layerConfig() // HOOKGATE_MAX_ATTEMPTS, HOOKGATE_LEASE, …
).pipe(
  Layer.provideMerge(Resend.layerConfig()), // RESEND_API_KEY
  Layer.provide(FetchHttpClient.layer)
)
// -----------------------------------------------------------------------------

/** The settings the README's layer reads, pointing Resend at its local test server. */
const settings = (server: ResendTestServer["Type"]) =>
  Layer.setConfigProvider(ConfigProvider.fromMap(
    new Map([
      ["STRIPE_WEBHOOK_SECRET", STRIPE_SECRET],
      ["CREEM_WEBHOOK_SECRET", "whsec_test_readme_creem"],
      ["RESEND_API_KEY", Redacted.value(server.mailerOptions.apiKey)],
      ["RESEND_BASE_URL", server.url],
      ["HOOKGATE_ALERT_EMAIL_TO", "owner@shop.example"],
      ["HOOKGATE_ALERT_EMAIL_FROM", "hookgate@shop.example"]
    ])
  ))

const paid = (id: string) =>
  checkoutSessionEvent(`evt_${id}`, "checkout.session.completed", { id, email: "buyer@example.com", amountTotal: 4900, currency: "eur" })

describe("README: Composing layers", () => {
  it.scopedLive("the composed layer takes a signed webhook to one email through Resend", () =>
    Effect.gen(function*() {
      const server = yield* ResendTestServer
      const request = yield* signStripeRequest(STRIPE_SECRET, paid("cs_readme_1"))
      // --- from README.md ---
      const outcome = receive("stripe", request).pipe(Effect.provide(Hookgate))
      // ---------------------
      const result = yield* outcome.pipe(Effect.provide(settings(server)))
      expect(result, JSON.stringify(result)).toMatchObject({ _tag: "Sent", orderKey: "stripe:cs_readme_1" })
    }).pipe(Effect.provide(ResendTestServer.layer())))

  it.scopedLive("the router snippet serves webhooks, and the admin routes only with the token", () =>
    Effect.gen(function*() {
      const server = yield* ResendTestServer
      const adminToken = "readme-admin-token"
      // --- from README.md ---
      const router = HttpRouter.concat(
        webhookRoutes(), // POST /webhooks/:provider
        adminRoutes({ token: Redacted.make(adminToken) }) // /admin/*, one bearer-token guard
      )
      // ---------------------
      const { dispose, handler } = toWebHandler(router, Hookgate.pipe(Layer.provide(settings(server))))
      yield* Effect.addFinalizer(() => Effect.promise(dispose))
      const stats = (token: string) =>
        Effect.promise(() => handler(new Request("http://hookgate.test/admin/stats", { headers: { authorization: `Bearer ${token}` } })))
      const sent = (answer: Response) => Effect.promise(() => answer.json() as Promise<{ orders: { sent: number } }>).pipe(Effect.map((s) => s.orders.sent))
      const before = yield* sent(yield* stats(adminToken))
      const signed = yield* signStripeRequest(STRIPE_SECRET, paid("cs_readme_2"))
      const webhook = yield* Effect.promise(() =>
        handler(new Request("http://hookgate.test/webhooks/stripe", { method: "POST", body: signed.body as BodyInit, headers: { ...signed.headers } })))
      expect(yield* Effect.promise(() => webhook.json())).toMatchObject({ status: "sent", orderId: "stripe:cs_readme_2" })
      expect((yield* stats("wrong")).status).toBe(401)
      const answer = yield* stats(adminToken)
      expect(answer.status).toBe(200)
      expect(yield* sent(answer)).toBe(before + 1)
    }).pipe(Effect.provide(ResendTestServer.layer())))
})
