import { FetchHttpClient } from "@effect/platform"
import { type Renderer, RetryPolicy } from "@hookgate/core"
import { Alerter } from "@hookgate/core/alerts"
import { defaultProbeSchedule, Mailer, MailerCircuit, withKeyWindowCheck } from "@hookgate/core/mail"
import { mountWhenSet, Providers } from "@hookgate/core/providers"
import { EmailAlerter, fanOut } from "@hookgate/alerters"
import { Resend } from "@hookgate/mailer-resend"
import { Creem } from "@hookgate/provider-creem"
import { Stripe } from "@hookgate/provider-stripe"
import { ConfigError, Effect, Layer, Option, Schedule } from "effect"
import type { GatewayConfig } from "./config/gateway-config.js"
import { logFailedSends } from "./mailer/log-failed-sends.js"
import { layerOutboxMailer } from "./mailer/outbox-mailer.js"
import { layerDefaultRenderer } from "./renderer.js"
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
 * Alerts are always logged; with HOOKGATE_OWNER_EMAIL they are also emailed to
 * the owner through the gateway's mailer, under a key of their own.
 */
export const alerterLayer = (config: GatewayConfig): Layer.Layer<Alerter, never, Mailer> =>
  Option.match(config.ownerEmail, {
    onNone: () => Alerter.layerLog(),
    onSome: (to) =>
      Layer.effect(
        Alerter,
        Effect.gen(function*() {
          const email = yield* EmailAlerter.make({ to, from: config.from })
          const log = yield* Effect.provide(Alerter, Alerter.layerLog())
          return fanOut({ log, email })
        })
      )
  })

/**
 * Everything but the providers: store, mailer (and its breaker), alerter,
 * renderer, retry policy. Enough for `sweep` and the admin commands. Refused
 * (`KeyWindowExceeded`) when the policy's attempts can outlast the mailer's key window.
 */
export const deliveryLayer = (config: GatewayConfig, overrides: GatewayOverrides = {}) =>
  withKeyWindowCheck(Layer.mergeAll(
    storeLayer(config),
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
 * The provider registry: Stripe and Creem, each mounted only with its secret.
 * With no secret at all there is nothing to serve, and the gateway refuses to start.
 */
export const providersLayer = (config: GatewayConfig): Layer.Layer<Providers, ConfigError.ConfigError> => {
  if (mountedProviders(config).length === 0) {
    return Layer.fail(ConfigError.MissingData(
      ["STRIPE_WEBHOOK_SECRET"],
      "no provider is configured: set STRIPE_WEBHOOK_SECRET and/or CREEM_WEBHOOK_SECRET (comma-separated for rotation)"
    ))
  }
  return Providers.layer(
    mountWhenSet(config.stripeSecrets, (secrets) => Stripe.layer({ secrets })),
    mountWhenSet(config.creemSecrets, (secrets) => Creem.layer({ secrets }))
  )
}

/** The whole gateway: providers and delivery. */
export const gatewayLayer = (config: GatewayConfig, overrides: GatewayOverrides = {}) =>
  Layer.merge(providersLayer(config), deliveryLayer(config, overrides))

/** The mailer as the operator should read it: `outbox (<folder>)` or `resend (<base URL>)`. */
export const describeMailer = (config: GatewayConfig) =>
  config.mailer === "outbox" ? `outbox (${config.outbox}: files, nobody is emailed)` : "resend"

export const describeGateway = (config: GatewayConfig) =>
  Effect.succeed({
    providers: mountedProviders(config),
    database: describeDatabase(config),
    mailer: describeMailer(config)
  })
