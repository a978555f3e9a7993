import { FetchHttpClient } from "@effect/platform"
import { EmailAlerter } from "@hookgate/alerters"
import { binding, layerD1Store, makeWorker, type WorkerEnv } from "@hookgate/cloudflare"
import { Renderer, RetryPolicy } from "@hookgate/core"
import { type Mailer, OutgoingEmail } from "@hookgate/core/mail"
import { Providers } from "@hookgate/core/providers"
import * as CloudflareEmail from "@hookgate/mailer-cf-email"
import * as Resend from "@hookgate/mailer-resend"
import { CreemProvider } from "@hookgate/provider-creem"
import { StripeProvider } from "@hookgate/provider-stripe"
import { Config, Effect, Layer, Option } from "effect"

// The buyer's email. Keep it deterministic: a retry sends the same body under the same key.
const Template = Layer.unwrapEffect(Effect.map(Config.string("EMAIL_FROM"), (from) =>
  Renderer.fromFunction((order) =>
    new OutgoingEmail({
      from,
      to: order.fulfilment.email,
      subject: "Your order is ready",
      text: `Thank you! Your order ${order.key} (${order.fulfilment.product ?? "your purchase"}) is ready.`
    }))))

// MAILER=resend: Resend's API (RESEND_API_KEY); MAILER=cloudflare: the send_email binding EMAIL.
const Mail = Layer.unwrapEffect(Effect.map(Config.literal("resend", "cloudflare")("MAILER"),
  (mailer): Layer.Layer<Mailer, unknown, WorkerEnv> =>
    mailer === "resend"
      ? Resend.layerConfig.pipe(Layer.provide(FetchHttpClient.layer))
      : Layer.unwrapEffect(Effect.map(binding<CloudflareEmail.SendEmailBinding>("EMAIL", "send"), (email) =>
        CloudflareEmail.layer({ binding: email, form: "sending" })))))

// A provider is mounted when its secret is set.
const whenSet = (secret: string, provider: Layer.Layer<never, unknown, Providers>) =>
  Layer.unwrapEffect(Effect.map(Config.option(Config.string(secret)), (set) => Option.isSome(set) ? provider : Layer.empty))
const Webhooks = Layer.mergeAll(
  whenSet("STRIPE_WEBHOOK_SECRET", StripeProvider.layerConfig()),
  whenSet("CREEM_WEBHOOK_SECRET", CreemProvider.layerConfig())
).pipe(Layer.provideMerge(Providers.layer()))

export default makeWorker({
  layer: Layer.mergeAll(Webhooks, Template, RetryPolicy.layerConfig, EmailAlerter.layerConfig).pipe(
    Layer.provideMerge(Mail),
    // Applies pending migrations once per isolate (a no-op after `wrangler d1 migrations apply`).
    Layer.provideMerge(layerD1Store({ binding: "DB", migrate: true }))
  )
})
