import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { EmailAlerter } from "@hookgate/alerters"
import { Cloudflare } from "@hookgate/cloudflare"
import { RENAMED_SETTINGS, renamedConfig, Renderer, RetryPolicy, warnRenamed } from "@hookgate/core"
import { Campaigns } from "@hookgate/core/campaigns"
import { adminRoutes } from "@hookgate/core/http"
import { type Mailer, OutgoingEmail } from "@hookgate/core/mail"
import { mountWhenSet, Providers } from "@hookgate/core/providers"
import { deadLetterHandler } from "@hookgate/core/queue"
import { CloudflareEmail } from "@hookgate/mailer-cf-email"
import { Resend } from "@hookgate/mailer-resend"
import { Creem } from "@hookgate/provider-creem"
import { LemonSqueezy } from "@hookgate/provider-lemonsqueezy"
import { Paddle } from "@hookgate/provider-paddle"
import { Polar } from "@hookgate/provider-polar"
import { Stripe } from "@hookgate/provider-stripe"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

// The buyer's email, from HOOKGATE_FROM (read under its former name, EMAIL_FROM, for one more
// release, with a warning). Keep it deterministic: a retry sends the same body under the same key.
const sender = renamedConfig(Config.string, RENAMED_SETTINGS.emailFrom)
const Template = Layer.unwrapEffect(Effect.zipRight(warnRenamed([RENAMED_SETTINGS.emailFrom]), Effect.map(sender, (from) =>
  Renderer.fromFunction((order) =>
    new OutgoingEmail({
      from,
      to: order.fulfilment.email,
      subject: "Your order is ready",
      text: `Thank you! Your order ${order.key} (${order.fulfilment.product ?? "your purchase"}) is ready.`
    })))))

// MAILER=resend: Resend's API (RESEND_API_KEY); MAILER=cloudflare: the send_email binding EMAIL.
const Mail = Layer.unwrapEffect(Effect.map(Config.literal("resend", "cloudflare")("MAILER"),
  (mailer): Layer.Layer<Mailer, unknown, Cloudflare.WorkerEnv> =>
    mailer === "resend"
      ? Resend.layerConfig().pipe(Layer.provide(FetchHttpClient.layer))
      : Layer.unwrapEffect(Effect.map(Cloudflare.binding<CloudflareEmail.SendEmailBinding>("EMAIL", "send"), (email) =>
        CloudflareEmail.layer({ binding: email, form: "sending" })))))

// A provider is mounted when its secret is set (a comma-separated list, for rotation). With the
// STRIPE_API_KEY secret (a restricted key that can read events), the cron also reconciles Stripe; with
// CREEM_API_KEY, it names to the owner the paid Creem orders no webhook brought (Creem's are not sent).
const Webhooks = Providers.layer(
  mountWhenSet("STRIPE_WEBHOOK_SECRET", (secrets) => Stripe.layerConfig({ secrets: Config.succeed(secrets) })),
  mountWhenSet("CREEM_WEBHOOK_SECRET", (secrets) => Creem.layerConfig({ secrets: Config.succeed(secrets) })),
  mountWhenSet("LEMONSQUEEZY_WEBHOOK_SECRET", (secrets) => LemonSqueezy.layer({ secrets })),
  mountWhenSet("POLAR_WEBHOOK_SECRET", (secrets) => Polar.layer({ secrets })),
  // Paddle fetches the customer's email from its API: PADDLE_API_KEY, and PADDLE_ENVIRONMENT or PADDLE_API_BASE_URL.
  mountWhenSet("PADDLE_WEBHOOK_SECRET", (secrets) => Paddle.layerConfig({ secrets: Config.succeed(secrets) }))
).pipe(Layer.provide(FetchHttpClient.layer))

// Beside the webhook routes (always served): the admin API (`/admin/*`, campaigns included) behind the
// HOOKGATE_ADMIN_TOKEN secret, read from env on each request: without it every admin request answers 401.
const Routes = adminRoutes({ token: Config.redacted("HOOKGATE_ADMIN_TOKEN"), campaigns: {} })

const Pipeline = Layer.mergeAll(Webhooks, Template, RetryPolicy.layerConfig(), EmailAlerter.layerConfig()).pipe(
  Layer.provideMerge(Mail),
  // Applies pending migrations once per isolate (a no-op after `wrangler d1 migrations apply`).
  Layer.provideMerge(Cloudflare.layerD1Store({ binding: "DB", migrate: true }))
)

export default Cloudflare.makeWorker({
  router: Routes,
  // Campaigns send their batch messages to the CAMPAIGNS queue (wrangler.jsonc) and mail through the same mailer.
  layer: Campaigns.layer().pipe(
    Layer.provideMerge(Cloudflare.layerCampaignQueue({ binding: "CAMPAIGNS" })),
    Layer.provideMerge(Pipeline)
  ),
  queues: {
    // One email per recipient, whatever the redeliveries; a paused campaign's batches wait for resume.
    "hookgate-campaigns": Cloudflare.campaignBatches,
    // Batches the queue gave up on: kept in D1, and the owner alerted.
    "hookgate-campaigns-dlq": deadLetterHandler()
  }
})
