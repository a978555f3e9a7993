import { FetchHttpClient } from "@effect/platform"
import { reconcile, type ReconcileReport } from "@hookgate/core"
import { Providers, type Secrets } from "@hookgate/core/providers"
import { Creem } from "@hookgate/provider-creem"
import { Stripe } from "@hookgate/provider-stripe"
import { Duration, Effect, Layer, Option, Schedule } from "effect"
import type { GatewayConfig } from "./config/gateway-config.js"

/**
 * Reconciliation in the gateway (issue 26): the providers mounted with their
 * listing when their API key is set, and the periodic run inside `serve`.
 */

/** Stripe, with List Events when `STRIPE_API_KEY` is set (on `STRIPE_API_BASE`), else webhooks alone. */
export const stripeLayer = (config: GatewayConfig, secrets: Secrets) =>
  Option.match(config.stripeApiKey, {
    onNone: () => Stripe.layer({ secrets }),
    onSome: (apiKey) =>
      Providers.register(
        Stripe.makeListing({ apiKey, baseUrl: config.stripeApiBase }).pipe(
          Effect.flatMap((reconcile) => Stripe.make({ secrets, reconcile })),
          Effect.provide(FetchHttpClient.layer)
        )
      )
  })

/**
 * Creem, with its transactions search when `CREEM_API_KEY` is set (on `CREEM_API_BASE`):
 * detect-only, the owner told of paid orders no webhook brought; else webhooks alone.
 */
export const creemLayer = (config: GatewayConfig, secrets: Secrets) =>
  Option.match(config.creemApiKey, {
    onNone: () => Creem.layer({ secrets }),
    onSome: (apiKey) =>
      Providers.register(
        Creem.makeListing({ apiKey, baseUrl: Option.getOrUndefined(config.creemApiBase) }).pipe(
          Effect.flatMap((reconcile) => Creem.make({ secrets, reconcile })),
          Effect.provide(FetchHttpClient.layer)
        )
      )
  })

/** The providers whose API key is set (and which therefore reconcile). */
export const reconcilingProviders = (config: GatewayConfig): ReadonlyArray<string> => [
  ...(Option.isSome(config.stripeApiKey) && Option.isSome(config.stripeSecrets) ? ["stripe"] : []),
  ...(Option.isSome(config.creemApiKey) && Option.isSome(config.creemSecrets) ? ["creem"] : [])
]

/** How often `serve` reconciles: `HOOKGATE_RECONCILE_EVERY`, else every hour when a key is set; None without a key. */
export const reconcileEvery = (config: GatewayConfig): Option.Option<Duration.Duration> =>
  reconcilingProviders(config).length === 0
    ? Option.none()
    : Option.some(Option.getOrElse(config.reconcileEvery, () => Duration.hours(1)))

/** One line per provider, for the log. */
export const logReport = (report: ReconcileReport) =>
  Effect.forEach(report.providers, (p) =>
    (p.error === null ? Effect.logInfo("reconciled") : Effect.logError("reconciliation stopped early")).pipe(
      Effect.annotateLogs({
        provider: p.provider,
        seen: p.seen,
        known: p.known,
        new: p.new,
        unpaid: p.unpaid,
        unfulfillable: p.unfulfillable,
        unsendable: p.unsendable,
        alerted: p.alerted,
        ...(p.error === null ? {} : { reason: p.error.reason, detail: p.error.detail, setting: p.error.setting })
      })
    ), { discard: true })

/**
 * The periodic run inside `serve`: once at start, then every `every` on a
 * `Schedule`. A run that fails (the store down) is logged and the next one runs;
 * several gateways on one database may run at once (the lease keeps one email per order).
 */
export const reconcilerLayer = (config: GatewayConfig) =>
  Option.match(reconcileEvery(config), {
    onNone: () => Layer.empty,
    onSome: (every) =>
      Layer.scopedDiscard(Effect.forkScoped(
        reconcile().pipe(
          Effect.flatMap(logReport),
          Effect.catchAllCause((cause) => Effect.logError("a reconciliation run failed", cause)),
          Effect.repeat(Schedule.spaced(every))
        )
      ))
  })
