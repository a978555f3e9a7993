import { FetchHttpClient } from "@effect/platform"
import { type Renderer, RetryPolicy } from "@hookgate/core"
import { Alerter, type AlerterShape } from "@hookgate/core/alerts"
import { defaultProbeSchedule, Mailer, MailerCircuit, withKeyWindowCheck } from "@hookgate/core/mail"
import { NodeHmac } from "@hookgate/core/node"
import { mountWhenSet, Providers } from "@hookgate/core/providers"
import { EmailAlerter, fanOut, WebhookAlerter } from "@hookgate/alerters"
import { Resend } from "@hookgate/mailer-resend"
import { Creem } from "@hookgate/provider-creem"
import { ConfigError, Effect, Layer, Option, Schedule } from "effect"
import type { GatewayConfig } from "./config/gateway-config.js"
import { logFailedSends } from "./mailer/log-failed-sends.js"
import { layerOutboxMailer } from "./mailer/outbox-mailer.js"
import { stripeLayer } from "./reconcile.js"
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

/** The mailer HOOKGATE_MAILER names: the local outbox, or Resend (RESEND_API_KEY, RESEND_BASE_URL). */
export const mailerLayer = (config: GatewayConfig): Layer.Layer<Mailer, ConfigError.ConfigError> =>
  config.mailer === "outbox"
    ? layerOutboxMailer(config.outbox)
    : Resend.layerConfig().pipe(Layer.provide(FetchHttpClient.layer))

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
export const deliveryLayer = (config: GatewayConfig, overrides: GatewayOverrides = {}) =>
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
  ).pipe(Layer.provideMerge(loggedMailer(overrides.mailer ?? mailerLayer(config)))))

/** The names of the providers that have a secret; only those are mounted. */
export const mountedProviders = (config: GatewayConfig): ReadonlyArray<string> => [
  ...(Option.isSome(config.stripeSecrets) ? ["stripe"] : []),
  ...(Option.isSome(config.creemSecrets) ? ["creem"] : [])
]

/**
 * The provider registry: Stripe and Creem, each mounted only with its secret,
 * their keys imported on node:crypto (`NodeHmac`). With no secret at all there
 * is nothing to serve, and the gateway refuses to start.
 */
export const providersLayer = (config: GatewayConfig): Layer.Layer<Providers, ConfigError.ConfigError> => {
  if (mountedProviders(config).length === 0) {
    return Layer.fail(ConfigError.MissingData(
      ["STRIPE_WEBHOOK_SECRET"],
      "no provider is configured: set STRIPE_WEBHOOK_SECRET and/or CREEM_WEBHOOK_SECRET (comma-separated for rotation)"
    ))
  }
  return Providers.layer(
    mountWhenSet(config.stripeSecrets, (secrets) => stripeLayer(config, secrets)),
    mountWhenSet(config.creemSecrets, (secrets) => Creem.layer({ secrets }))
  ).pipe(Layer.provide(NodeHmac.layer()))
}

/** The whole gateway: providers and delivery, hashing on node:crypto too (the fulfilment hash). */
export const gatewayLayer = (config: GatewayConfig, overrides: GatewayOverrides = {}) =>
  Layer.mergeAll(providersLayer(config), deliveryLayer(config, overrides), NodeHmac.layer())

/** The mailer as the operator should read it: `outbox (<folder>)` or `resend (<base URL>)`. */
export const describeMailer = (config: GatewayConfig) =>
  config.mailer === "outbox" ? `outbox (${config.outbox}: files, nobody is emailed)` : "resend"

export const describeGateway = (config: GatewayConfig) =>
  Effect.succeed({
    providers: mountedProviders(config),
    database: describeDatabase(config),
    mailer: describeMailer(config)
  })
