import { FetchHttpClient } from "@effect/platform"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { type Renderer, RetryPolicy } from "@hookgate/core"
import { Alerter, type AlerterShape } from "@hookgate/core/alerts"
import { defaultProbeSchedule, Mailer, MailerCircuit, withKeyWindowCheck } from "@hookgate/core/mail"
import { NodeHmac } from "@hookgate/core/node"
import { mountWhenSet, Providers, type Secrets } from "@hookgate/core/providers"
import { EmailAlerter, fanOut, WebhookAlerter } from "@hookgate/alerters"
import { Postmark } from "@hookgate/mailer-postmark"
import { Resend } from "@hookgate/mailer-resend"
import { Smtp } from "@hookgate/mailer-smtp"
import { LemonSqueezy } from "@hookgate/provider-lemonsqueezy"
import { Paddle } from "@hookgate/provider-paddle"
import { Polar } from "@hookgate/provider-polar"
import { ConfigError, Effect, Layer, Option, Schedule } from "effect"
import type { GatewayConfig } from "./config/gateway-config.js"
import { logFailedSends } from "./mailer/log-failed-sends.js"
import * as OutboxMailer from "./mailer/OutboxMailer.js"
import { creemLayer, stripeLayer } from "./reconcile.js"
import { layerDefaultRenderer } from "./renderer.js"
import { withOutageLog } from "./store-health.js"
import { describeDatabase, storeLayer } from "./store-layer.js"

/** What a program embedding the gateway may replace. */
export interface GatewayOverrides {
  readonly mailer?: Layer.Layer<Mailer>
  readonly renderer?: Layer.Layer<Renderer>
  readonly alerter?: Layer.Layer<Alerter>
  readonly retryPolicy?: Layer.Layer<RetryPolicy>
}

/**
 * The HTTP client of the mailers' REST APIs: undici's own `request` on a keep-alive pool, not
 * `fetch`, whose Web streams (the body made a stream, then teed and read back) cost more than
 * the rest of a send on Node. The same `HttpClient`, the same spans and trace headers.
 */
const mailerHttpClient = NodeHttpClient.layerUndici

/**
 * The mailer HOOKGATE_MAILER names: the local outbox, Resend (RESEND_API_KEY, RESEND_BASE_URL, …),
 * SMTP (SMTP_HOST, …: a pool of connections, closed when the gateway shuts down) or Postmark
 * (POSTMARK_SERVER_TOKEN, …). Each mailer's settings were read with the gateway's, by its own Config.
 */
export const layerMailer = (config: GatewayConfig): Layer.Layer<Mailer, ConfigError.ConfigError> => {
  switch (config.mailer) {
    case "outbox":
      return OutboxMailer.layer(config.outbox)
    case "resend":
      return Option.match(config.resend, {
        onNone: () => Layer.fail(ConfigError.MissingData(["RESEND_API_KEY"], "HOOKGATE_MAILER=resend without its settings")),
        onSome: (options) => Resend.layer(options).pipe(Layer.provide(mailerHttpClient))
      })
    case "smtp":
      return Option.match(config.smtp, {
        onNone: () => Layer.fail(ConfigError.MissingData(["SMTP_HOST"], "HOOKGATE_MAILER=smtp without its settings")),
        onSome: ({ options }) => Smtp.layer(options)
      })
    case "postmark":
      return Option.match(config.postmark, {
        onNone: () => Layer.fail(ConfigError.MissingData(["POSTMARK_SERVER_TOKEN"], "HOOKGATE_MAILER=postmark without its settings")),
        onSome: (options) => Postmark.layer(options).pipe(Layer.provide(mailerHttpClient))
      })
  }
}

/** The mailer, with each failed send logged at WARN (error class and message). */
const loggedMailer = (mailer: Layer.Layer<Mailer, ConfigError.ConfigError>) =>
  Layer.effect(Mailer, Effect.map(Mailer, logFailedSends)).pipe(Layer.provide(mailer))

/**
 * Alerts are always logged; with HOOKGATE_OWNER_EMAIL they are also emailed to the owner
 * through the gateway's mailer (under a key of their own), and with
 * HOOKGATE_ALERT_WEBHOOK_URL POSTed to that webhook: either, both, or neither.
 * An alert that the mailer itself is misconfigured cannot go by email; when the
 * webhook is there to carry it, the email channel leaves it to the webhook.
 */
export const alerterLayer = (config: GatewayConfig): Layer.Layer<Alerter, never, Mailer> =>
  Option.isNone(config.ownerEmail) && Option.isNone(config.alertWebhookUrl)
    ? Alerter.layerLog()
    : Layer.effect(
      Alerter,
      Effect.gen(function*() {
        const channels: Record<string, AlerterShape> = { log: yield* Effect.provide(Alerter, Alerter.layerLog()) }
        if (Option.isSome(config.alertWebhookUrl)) {
          channels.webhook = yield* WebhookAlerter.make({
            url: config.alertWebhookUrl.value,
            timeout: config.alertWebhookTimeout,
            ...Option.match(config.alertWebhookToken, { onNone: () => ({}), onSome: (bearerToken) => ({ bearerToken }) })
          }).pipe(Effect.provide(FetchHttpClient.layer))
        }
        if (Option.isSome(config.ownerEmail)) {
          const email = yield* EmailAlerter.make({ to: config.ownerEmail.value, from: config.from })
          channels.email = channels.webhook === undefined
            ? email
            : { alert: (alert) => (alert.kind === "mailer_misconfigured" ? Effect.void : email.alert(alert)) }
        }
        return fanOut(channels)
      })
    )

/** Where owner alerts go, as `config check` prints it. */
export const describeAlerts = (config: GatewayConfig) =>
  [
    "log",
    ...Option.match(config.ownerEmail, { onNone: () => [], onSome: (to) => [`email to ${to}`] }),
    ...(Option.isSome(config.alertWebhookUrl) ? ["webhook"] : [])
  ].join(", ")

/**
 * Everything but the providers: store (its outages logged once each), mailer (and its breaker), alerter,
 * renderer, retry policy. Enough for `sweep` and the admin commands. Refused
 * (`KeyWindowExceeded`) when the policy's attempts can outlast the mailer's key window.
 */
export const layerDelivery = (config: GatewayConfig, overrides: GatewayOverrides = {}) =>
  withKeyWindowCheck(Layer.mergeAll(
    withOutageLog(storeLayer(config)),
    overrides.alerter ?? alerterLayer(config),
    overrides.renderer ?? layerDefaultRenderer(config.from),
    overrides.retryPolicy ?? RetryPolicy.layer(config.retry),
    MailerCircuit.layer({
      probeEvery: Option.match(config.mailerProbeEvery, {
        onNone: () => defaultProbeSchedule,
        onSome: (every) => Schedule.spaced(every)
      })
    })
  ).pipe(Layer.provideMerge(loggedMailer(overrides.mailer ?? layerMailer(config)))))

/** Each provider the gateway can mount, by its path segment, and the setting that mounts it. */
export const PROVIDER_SECRETS = {
  stripe: "STRIPE_WEBHOOK_SECRET",
  creem: "CREEM_WEBHOOK_SECRET",
  lemonsqueezy: "LEMONSQUEEZY_WEBHOOK_SECRET",
  polar: "POLAR_WEBHOOK_SECRET",
  paddle: "PADDLE_WEBHOOK_SECRET"
} as const

export type ProviderName = keyof typeof PROVIDER_SECRETS

const secretsOf = (config: GatewayConfig) => ({
  stripe: config.stripeSecrets,
  creem: config.creemSecrets,
  lemonsqueezy: config.lemonSqueezySecrets,
  polar: config.polarSecrets,
  paddle: config.paddleSecrets
})

/** "set STRIPE_WEBHOOK_SECRET, CREEM_WEBHOOK_SECRET, … or PADDLE_WEBHOOK_SECRET": what mounts a provider. */
export const NO_PROVIDER = `no provider is configured: set one or more of ${Object.values(PROVIDER_SECRETS).join(", ")} (comma-separated for rotation)`

/** The names of the providers that have a secret; only those are mounted. */
export const mountedProviders = (config: GatewayConfig): ReadonlyArray<ProviderName> => {
  const secrets = secretsOf(config)
  return (Object.keys(PROVIDER_SECRETS) as Array<ProviderName>).filter((name) => Option.isSome(secrets[name]))
}

/** Paddle's API as the settings give it: PADDLE_API_BASE_URL, else by PADDLE_ENVIRONMENT. */
export const paddleApiBaseUrl = (config: GatewayConfig) =>
  Option.getOrElse(config.paddleApiBaseUrl, () => config.paddleEnvironment === "sandbox" ? Paddle.SANDBOX_API : Paddle.PRODUCTION_API)

/**
 * The provider registry: each provider mounted only with its secret, their keys imported on
 * node:crypto (`NodeHmac`); Paddle with an HTTP client for its customer API (PADDLE_API_KEY).
 * With no secret at all there is nothing to serve, and the gateway refuses to start.
 */
export const layerProviders = (config: GatewayConfig): Layer.Layer<Providers, ConfigError.ConfigError> => {
  if (mountedProviders(config).length === 0) {
    return Layer.fail(ConfigError.MissingData(["STRIPE_WEBHOOK_SECRET"], NO_PROVIDER))
  }
  return Providers.layer(
    mountWhenSet(config.stripeSecrets, (secrets) => stripeLayer(config, secrets)),
    mountWhenSet(config.creemSecrets, (secrets) => creemLayer(config, secrets)),
    mountWhenSet(config.lemonSqueezySecrets, (secrets) => LemonSqueezy.layer({ secrets })),
    mountWhenSet(config.polarSecrets, (secrets) => Polar.layer({ secrets })),
    mountWhenSet(config.paddleSecrets, (secrets) => paddleLayer(config, secrets))
  ).pipe(Layer.provide(NodeHmac.layer()))
}

/** Paddle, with the API key GatewayConfig required beside its secret, and fetch for its customer API. */
const paddleLayer = (config: GatewayConfig, secrets: Secrets): Layer.Layer<never, ConfigError.ConfigError, Providers> =>
  Option.match(config.paddleApiKey, {
    onNone: () => Layer.fail(ConfigError.MissingData(["PADDLE_API_KEY"], "is not set (needed with PADDLE_WEBHOOK_SECRET)")),
    onSome: (apiKey) =>
      Paddle.layer({ secrets, apiKey, baseUrl: paddleApiBaseUrl(config) }).pipe(Layer.provide(FetchHttpClient.layer))
  })

/** The mailer as the operator should read it: `outbox (<folder>)`, `resend`, `smtp (<host>:<port>, <security>)`, `postmark (<base URL>)`. */
export const describeMailer = (config: GatewayConfig) => {
  switch (config.mailer) {
    case "outbox":
      return `outbox (${config.outbox}: files, nobody is emailed)`
    case "resend":
      return "resend"
    case "smtp":
      return Option.match(config.smtp, {
        onNone: () => "smtp",
        onSome: ({ options }) => {
          const security = options.security ?? "starttls"
          return `smtp (${options.host}:${options.port ?? Smtp.DEFAULT_PORTS[security]}, ${security})`
        }
      })
    case "postmark":
      return Option.match(config.postmark, {
        onNone: () => "postmark",
        onSome: (options) => `postmark (${options.baseUrl ?? Postmark.DEFAULT_BASE_URL})`
      })
  }
}

export const describeGateway = (config: GatewayConfig) =>
  Effect.succeed({
    providers: mountedProviders(config),
    database: describeDatabase(config),
    mailer: describeMailer(config)
  })
