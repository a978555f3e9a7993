import { Command, Options } from "@effect/cli"
import { RetryPolicy, type RetryPolicyShape } from "@hookgate/core"
import { Console, Duration, Effect, Option, Redacted } from "effect"
import { DEV_SETTINGS, GatewayConfig } from "../config/gateway-config.js"
import { settingsProvider, SettingsSource } from "../config/source.js"
import { Postmark } from "@hookgate/mailer-postmark"
import { Resend } from "@hookgate/mailer-resend"
import { Creem } from "@hookgate/provider-creem"
import { Smtp } from "@hookgate/mailer-smtp"
import { PgStore } from "@hookgate/store-pg"
import { describeAlerts, describeMailer, mountedProviders, NO_PROVIDER, paddleApiBaseUrl } from "../gateway-layer.js"
import { reconcileEvery } from "../reconcile.js"
import { table } from "./print.js"
import { targetLine } from "./target.js"

const REDACTED = "<redacted>"

const secretList = (secrets: Option.Option<ReadonlyArray<Redacted.Redacted<string>>>) =>
  Option.match(secrets, { onNone: () => "-", onSome: (list) => `${REDACTED} (${list.length} secret${list.length === 1 ? "" : "s"})` })
const secret = (value: Option.Option<Redacted.Redacted<string>>) => Option.match(value, { onNone: () => "-", onSome: () => REDACTED })
const duration = (value: Duration.DurationInput | undefined, fallback: Duration.DurationInput) => Duration.format(Duration.decode(value ?? fallback))

/** The effective settings as `serve` would use them, every secret shown as `<redacted>`. */
export const effectiveSettings = (config: GatewayConfig, policy: RetryPolicyShape): ReadonlyArray<readonly [string, string]> => [
  ["HOST", Option.getOrElse(config.host, () => "- (every interface)")],
  ["PORT", String(config.port)],
  ["HOOKGATE_DB", config.db],
  ["HOOKGATE_DB_BUSY_TIMEOUT", Duration.format(config.dbBusyTimeout)],
  ["HOOKGATE_MAILER", describeMailer(config)],
  ...mailerSettings(config),
  ["HOOKGATE_FROM", config.from],
  ["HOOKGATE_OWNER_EMAIL", Option.getOrElse(config.ownerEmail, () => "-")],
  ["HOOKGATE_ALERT_WEBHOOK_URL", secret(config.alertWebhookUrl)],
  ["HOOKGATE_ALERT_WEBHOOK_TOKEN", secret(config.alertWebhookToken)],
  ...(Option.isSome(config.alertWebhookUrl)
    ? [["HOOKGATE_ALERT_WEBHOOK_TIMEOUT", Duration.format(config.alertWebhookTimeout)] as const]
    : []),
  ["owner alerts", describeAlerts(config)],
  ["providers", mountedProviders(config).join(", ") || "none"],
  ["STRIPE_WEBHOOK_SECRET", secretList(config.stripeSecrets)],
  ["CREEM_WEBHOOK_SECRET", secretList(config.creemSecrets)],
  ["LEMONSQUEEZY_WEBHOOK_SECRET", secretList(config.lemonSqueezySecrets)],
  ["POLAR_WEBHOOK_SECRET", secretList(config.polarSecrets)],
  ["PADDLE_WEBHOOK_SECRET", secretList(config.paddleSecrets)],
  ...(Option.isSome(config.paddleSecrets)
    ? [
      ["PADDLE_API_KEY", secret(config.paddleApiKey)] as const,
      ["PADDLE_ENVIRONMENT", config.paddleEnvironment] as const,
      ["PADDLE_API_BASE_URL", paddleApiBaseUrl(config)] as const
    ]
    : []),
  // Reconciliation: on for the providers whose API key is set.
  ["STRIPE_API_KEY", secret(config.stripeApiKey)],
  ...(Option.isSome(config.stripeApiKey) ? [["STRIPE_API_BASE", config.stripeApiBase] as const] : []),
  ["CREEM_API_KEY", secret(config.creemApiKey)],
  ...Option.match(config.creemApiKey, {
    onNone: () => [],
    onSome: (key) => [["CREEM_API_BASE", Option.getOrElse(config.creemApiBase, () => Creem.defaultBase(key))] as const]
  }),
  ["HOOKGATE_RECONCILE_EVERY", Option.match(reconcileEvery(config), { onNone: () => "- (no provider API key)", onSome: Duration.format })],
  ["HOOKGATE_ADMIN_TOKEN", secret(config.adminToken)],
  ["HOOKGATE_METRICS", config.metrics],
  ["HOOKGATE_METRICS_TOKEN", secret(config.metricsToken)],
  ["HOOKGATE_MAX_BODY", `${config.maxBodyBytes} bytes`],
  ["HOOKGATE_MAX_ATTEMPTS", String(config.retry.maxAttempts ?? 8)],
  ["HOOKGATE_LEASE", duration(config.retry.leaseFor, "5 minutes")],
  ["HOOKGATE_SEND_TIMEOUT", Duration.format(policy.sendTimeout)],
  ["HOOKGATE_SWEEP_EVERY", duration(config.retry.sweepEvery, "10 minutes")],
  ["HOOKGATE_RETRY_BACKOFF", duration(config.retry.backoffBase, "1 minute")],
  ...postgresSettings(config),
  ["HOOKGATE_CAMPAIGN_POLL", Duration.format(config.campaignPoll)],
  ["HOOKGATE_SHUTDOWN_GRACE", Duration.format(config.shutdownGrace)],
  ["HOOKGATE_HEADERS_TIMEOUT", Duration.format(config.headersTimeout)],
  ["HOOKGATE_REQUEST_TIMEOUT", Duration.format(config.requestTimeout)],
  ["HOOKGATE_WEBHOOK_CONCURRENCY", Option.match(config.webhookConcurrency, { onNone: () => "off", onSome: String })],
  ["HOOKGATE_WEBHOOK_QUEUE_TIMEOUT", Duration.format(config.webhookQueueTimeout)],
  ["HOOKGATE_LOG_FORMAT", config.logFormat]
]

/** Postgres's settings (`PgStore.PgStoreConfig`) when HOOKGATE_DATABASE_URL selects it. */
const postgresSettings = (config: GatewayConfig): ReadonlyArray<readonly [string, string]> =>
  Option.match(config.postgres, {
    onNone: () => [["HOOKGATE_DATABASE_URL", "- (SQLite)"]],
    onSome: (options) => [
      ["HOOKGATE_DATABASE_URL", REDACTED],
      ["HOOKGATE_DB_POOL_SIZE", String(options.maxConnections ?? PgStore.DEFAULT_MAX_CONNECTIONS)],
      ["HOOKGATE_DB_STATEMENT_TIMEOUT", duration(options.statementTimeout, PgStore.DEFAULT_STATEMENT_TIMEOUT)],
      ["HOOKGATE_DB_CONNECT_TIMEOUT", duration(options.connectTimeout, PgStore.DEFAULT_CONNECT_TIMEOUT)]
    ]
  })

/** Resend's, SMTP's or Postmark's own settings, when HOOKGATE_MAILER selects it. */
const mailerSettings = (config: GatewayConfig): ReadonlyArray<readonly [string, string]> => [
  ...Option.match(config.resend, {
    onNone: () => [],
    onSome: (options) => [
      ["RESEND_API_KEY", REDACTED],
      ["RESEND_BASE_URL", options.baseUrl ?? Resend.DEFAULT_BASE_URL],
      ["RESEND_TIMEOUT", duration(options.timeout, Resend.DEFAULT_TIMEOUT)]
    ] as const
  }),
  ...Option.match(config.smtp, {
    onNone: () => [],
    onSome: ({ caFile, options }) => {
      const security = options.security ?? "starttls"
      return [
        ["SMTP_HOST", options.host],
        ["SMTP_PORT", String(options.port ?? Smtp.DEFAULT_PORTS[security])],
        ["SMTP_SECURITY", security],
        ["SMTP_USER", options.auth?.user ?? "- (no AUTH)"],
        ["SMTP_PASSWORD", options.auth === undefined ? "-" : REDACTED],
        ["SMTP_POOL_SIZE", String(options.poolSize ?? Smtp.DEFAULT_POOL_SIZE)],
        ["SMTP_TIMEOUT", duration(options.timeout, Smtp.DEFAULT_TIMEOUT)],
        ["SMTP_TLS_CA_FILE", Option.getOrElse(caFile, () => "- (the system's trusted roots)")],
        ["SMTP_TLS_SERVERNAME", options.tls?.servername ?? "- (SMTP_HOST)"]
      ] as const
    }
  }),
  ...Option.match(config.postmark, {
    onNone: () => [],
    onSome: (options) => [
      ["POSTMARK_SERVER_TOKEN", REDACTED],
      ["POSTMARK_BASE_URL", options.baseUrl ?? Postmark.DEFAULT_BASE_URL],
      ["POSTMARK_MESSAGE_STREAM", options.messageStream ?? "- (outbound)"],
      ["POSTMARK_TIMEOUT", duration(options.timeout, Postmark.DEFAULT_TIMEOUT)]
    ] as const
  })
]

const dev = Options.boolean("dev").pipe(
  Options.withDescription("check the settings `serve --dev` (npm start) runs with: the development settings under yours")
)

/** The table on stdout (the data); the first line and any problem on stderr, as every command does. */
const checkSettings = (command: string) =>
  Effect.gen(function*() {
    const config = yield* GatewayConfig
    yield* Console.error(targetLine(config, command))
    yield* Console.log(table(["setting", "effective value"], effectiveSettings(config, yield* RetryPolicy.make(config.retry)).map(([k, v]) => [k, v])))
    if (mountedProviders(config).length === 0) {
      process.exitCode = 1
      return yield* Console.error(`hookgate: not servable: ${NO_PROVIDER}`)
    }
    yield* Console.error("the settings are valid")
  })

const check = Command.make("check", { dev }, ({ dev }) =>
  dev
    ? Effect.gen(function*() {
      const { file } = yield* SettingsSource
      // As `serve --dev`: the development settings sit under the environment and the settings file.
      // The admin token is random per process: this one is not the running gateway's (it shows as <redacted> either way).
      const provider = yield* settingsProvider({ file, defaults: DEV_SETTINGS })
      yield* checkSettings("config check --dev").pipe(Effect.withConfigProvider(provider))
    })
    : checkSettings("config check")
).pipe(Command.withDescription("validate the settings (environment and --config file) and print the effective values, secrets redacted"))

export const configCommand = Command.make("config").pipe(
  Command.withDescription("the gateway's settings"),
  Command.withSubcommands([check])
)
