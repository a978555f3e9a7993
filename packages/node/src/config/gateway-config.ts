import { durationConfig, LEASE_MARGIN, type RetryPolicyOptions, retryPolicyConfigError, retryPolicyProblems } from "@hookgate/core"
import { secretsConfig } from "@hookgate/core/providers"
import { Postmark } from "@hookgate/mailer-postmark"
import { Resend } from "@hookgate/mailer-resend"
import { Smtp } from "@hookgate/mailer-smtp"
import { PgStore } from "@hookgate/store-pg"
import { Config, ConfigError, ConfigProvider, Duration, Effect, Either, Option, Redacted } from "effect"
import { randomBytes } from "node:crypto"

/**
 * The gateway's settings, read through Effect's Config (see `settingsProvider`
 * for where from). Secrets are `Redacted`; comma-separated secret lists allow
 * rotation. Every problem is reported at once (each setting is read on its own, then the
 * settings that depend on one another are checked), each as one `InvalidData` naming its setting.
 * The settings a package reads (Postgres's, each mailer's) are read with that package's own
 * Config (`PgStore.PgStoreConfig`, `Resend.ResendConfig`, …), never declared again here.
 * Durations take every form `parseDuration` reads: `5m`, `2m 30s`, `5 minutes`, `30000`, `PT5M`.
 */

const POSITIVE = "must be a positive duration, e.g. 5s or \"5 seconds\""

const isPositive = (d: Duration.Duration) => Duration.isFinite(d) && Duration.greaterThan(d, Duration.zero)

/** A duration that must be above zero: `0 seconds` would make a loop spin (sweep, campaign watcher). */
const positiveDuration = (name: string, fallback: Duration.DurationInput) =>
  durationConfig(name).pipe(
    Config.validate({ message: POSITIVE, validation: isPositive }),
    Config.withDefault(Duration.decode(fallback))
  )

const isHttpUrl = (value: string) => {
  try {
    const url = new URL(value)
    return url.protocol === "http:" || url.protocol === "https:"
  } catch {
    return false
  }
}

/** Webhooks worked on at once unless HOOKGATE_WEBHOOK_CONCURRENCY says otherwise. */
export const DEFAULT_WEBHOOK_CONCURRENCY = 32

/** A positive whole number of webhooks, or `off` (None). */
const webhookConcurrencyPrimitive = Config.primitive("a number of webhooks, or off", (text) => {
  const value = text.trim()
  if (value.toLowerCase() === "off") return Either.right(Option.none<number>())
  return /^[1-9]\d*$/.test(value)
    ? Either.right(Option.some(Number(value)))
    : Either.left(ConfigError.InvalidData([], "must be a positive whole number of webhooks, or off"))
})

/** A bearer token: an empty one would be a token anyone can send. */
const token = (name: string) =>
  Config.string(name).pipe(Config.validate({ message: "must not be empty", validation: (t) => t.trim() !== "" }), Config.map(Redacted.make))

const fields = {
  // 0 asks the system for a free port (tests, the demo).
  port: Config.integer("PORT").pipe(
    Config.validate({ message: "must be a port number (0 for any free port)", validation: (n) => n >= 0 && n <= 65535 }),
    Config.withDefault(8787)
  ),
  /** The interface to listen on: `127.0.0.1` under `--dev` (the dev settings supply it); unset, every interface. */
  host: Config.option(Config.string("HOST").pipe(
    Config.validate({ message: "must be an address to listen on, e.g. 127.0.0.1 or 0.0.0.0", validation: (h) => h.trim() !== "" })
  )),
  db: Config.string("HOOKGATE_DB").pipe(Config.withDefault(".hookgate/hookgate.db")),
  /** How long a write waits in all for another process's lock before the store reports itself unavailable. */
  dbBusyTimeout: positiveDuration("HOOKGATE_DB_BUSY_TIMEOUT", "5 seconds"),
  mailer: Config.literal("outbox", "resend", "smtp", "postmark")("HOOKGATE_MAILER").pipe(Config.withDefault("outbox" as const)),
  outbox: Config.string("HOOKGATE_OUTBOX").pipe(Config.withDefault(".hookgate/outbox")),
  from: Config.string("HOOKGATE_FROM").pipe(Config.withDefault("hookgate <orders@hookgate.localhost>")),
  ownerEmail: Config.option(Config.string("HOOKGATE_OWNER_EMAIL")),
  /**
   * Owner alerts are also POSTed here as JSON `{ text, alert }` (a Slack incoming webhook, or
   * an endpoint of your own). A secret (a Slack URL is its own credential): `Redacted`.
   */
  alertWebhookUrl: Config.option(
    Config.string("HOOKGATE_ALERT_WEBHOOK_URL").pipe(
      Config.validate({ message: "must be an http:// or https:// URL", validation: isHttpUrl }),
      Config.map(Redacted.make)
    )
  ),
  /** Sent to the alert webhook as `Authorization: Bearer <token>` when set. */
  alertWebhookToken: Config.option(token("HOOKGATE_ALERT_WEBHOOK_TOKEN")),
  /** How long one POST to the alert webhook may take. */
  alertWebhookTimeout: positiveDuration("HOOKGATE_ALERT_WEBHOOK_TIMEOUT", "10 seconds"),
  stripeSecrets: Config.option(secretsConfig("STRIPE_WEBHOOK_SECRET")),
  creemSecrets: Config.option(secretsConfig("CREEM_WEBHOOK_SECRET")),
  lemonSqueezySecrets: Config.option(secretsConfig("LEMONSQUEEZY_WEBHOOK_SECRET")),
  polarSecrets: Config.option(secretsConfig("POLAR_WEBHOOK_SECRET")),
  paddleSecrets: Config.option(secretsConfig("PADDLE_WEBHOOK_SECRET")),
  /** Paddle's API, for the customer's email a transaction lacks: required with PADDLE_WEBHOOK_SECRET (checked below). */
  paddleApiKey: Config.option(Config.redacted("PADDLE_API_KEY")),
  paddleEnvironment: Config.literal("production", "sandbox")("PADDLE_ENVIRONMENT").pipe(Config.withDefault("production" as const)),
  paddleApiBaseUrl: Config.option(Config.string("PADDLE_API_BASE_URL").pipe(
    Config.validate({ message: "must be an http:// or https:// URL", validation: isHttpUrl })
  )),
  // Reconciliation (issue 26): a provider's API key turns it on; the bases default to production.
  /** A Stripe secret key, or a restricted key with read access to Events (List Events). */
  stripeApiKey: Config.option(token("STRIPE_API_KEY")),
  stripeApiBase: Config.string("STRIPE_API_BASE").pipe(
    Config.validate({ message: "must be an http:// or https:// URL", validation: isHttpUrl }),
    Config.withDefault("https://api.stripe.com")
  ),
  /** A Creem API key (transactions search and customers): detect-only reconciliation, the owner told of paid orders no webhook brought. */
  creemApiKey: Config.option(token("CREEM_API_KEY")),
  /** Default: Creem's test API for a `creem_test_` key, else its production API. */
  creemApiBase: Config.option(Config.string("CREEM_API_BASE").pipe(
    Config.validate({ message: "must be an http:// or https:// URL", validation: isHttpUrl })
  )),
  /** How often `serve` reconciles; unset: every hour when a provider's API key is set. */
  reconcileEvery: Config.option(
    durationConfig("HOOKGATE_RECONCILE_EVERY").pipe(Config.validate({ message: POSITIVE, validation: isPositive }))
  ),
  adminToken: Config.option(token("HOOKGATE_ADMIN_TOKEN")),
  /**
   * `prometheus`: serve `GET /metrics` (needs the optional packages @effect/opentelemetry and
   * @opentelemetry/exporter-prometheus); `off` (the default): no `/metrics` route.
   */
  metrics: Config.literal("off", "prometheus")("HOOKGATE_METRICS").pipe(Config.withDefault("off" as const)),
  /** When set, `GET /metrics` needs `Authorization: Bearer <token>`. */
  metricsToken: Config.option(token("HOOKGATE_METRICS_TOKEN")),
  maxBodyBytes: Config.integer("HOOKGATE_MAX_BODY").pipe(
    Config.validate({ message: "must be a positive number of bytes", validation: (n) => n > 0 }),
    Config.withDefault(256 * 1024)
  ),
  /** How long in-flight requests may run on shutdown before connections are closed. */
  shutdownGrace: durationConfig("HOOKGATE_SHUTDOWN_GRACE").pipe(Config.withDefault(Duration.seconds(10))),
  /**
   * How long a client may take to send a request's headers, and its whole request (headers and
   * body). A provider sends a webhook in well under a second and waits seconds for the answer;
   * a connection that stalls is closed (408) instead of being held for Node's five minutes.
   */
  headersTimeout: positiveDuration("HOOKGATE_HEADERS_TIMEOUT", "10 seconds"),
  requestTimeout: positiveDuration("HOOKGATE_REQUEST_TIMEOUT", "30 seconds"),
  /**
   * Webhooks worked on at once; more wait for a slot, first come first served, at most
   * HOOKGATE_WEBHOOK_QUEUE_TIMEOUT, then get 503 `busy` with `Retry-After` (the provider
   * sends them again). Bounds the latency and the memory of a burst (docs/operations.md).
   * `off`: every webhook is worked on at once.
   */
  webhookConcurrency: Config.nested(webhookConcurrencyPrimitive, "HOOKGATE_WEBHOOK_CONCURRENCY").pipe(
    Config.withDefault(Option.some(DEFAULT_WEBHOOK_CONCURRENCY))
  ),
  /** How long a webhook may wait for a slot; 0 refuses at once when every slot is taken. */
  webhookQueueTimeout: durationConfig("HOOKGATE_WEBHOOK_QUEUE_TIMEOUT").pipe(
    Config.validate({ message: "must be a duration of zero or more, e.g. 2s", validation: Duration.isFinite }),
    Config.withDefault(Duration.seconds(2))
  ),
  /** How often an idle gateway looks for running campaigns with batches to send (started from the CLI, or before a restart). */
  campaignPoll: positiveDuration("HOOKGATE_CAMPAIGN_POLL", "5 seconds"),
  /**
   * How often a misconfigured mailer (revoked key, unverified domain, wrong base URL)
   * is probed again; unset: 30 seconds, doubling, at most 10 minutes.
   */
  mailerProbeEvery: Config.option(
    durationConfig("HOOKGATE_MAILER_PROBE_EVERY").pipe(Config.validate({ message: POSITIVE, validation: isPositive }))
  ),
  /** `json` (one object per line, the default) or `pretty` (for a human at a terminal). */
  logFormat: Config.literal("json", "pretty")("HOOKGATE_LOG_FORMAT").pipe(Config.withDefault("json" as const)),
  // The retry settings, each read on its own here and checked together below (as `RetryPolicyConfig` does).
  maxAttempts: Config.integer("HOOKGATE_MAX_ATTEMPTS").pipe(Config.withDefault(8)),
  leaseFor: durationConfig("HOOKGATE_LEASE").pipe(Config.withDefault(Duration.minutes(5))),
  sweepEvery: durationConfig("HOOKGATE_SWEEP_EVERY").pipe(Config.withDefault(Duration.minutes(10))),
  sendTimeout: Config.option(durationConfig("HOOKGATE_SEND_TIMEOUT")),
  backoffBase: durationConfig("HOOKGATE_RETRY_BACKOFF").pipe(Config.withDefault(Duration.minutes(1)))
}

type Fields = typeof fields
type Read = { readonly [K in keyof Fields]: Config.Config.Success<Fields[K]> }
type Settings = Omit<Read, "maxAttempts" | "leaseFor" | "sweepEvery" | "sendTimeout" | "backoffBase"> & {
  /** The retry settings (lease, sweep cadence, cap, send timeout, backoff), validated as `RetryPolicyConfig` does. */
  readonly retry: RetryPolicyOptions
  /**
   * Postgres's settings (`PgStore.PgStoreConfig`: the URL, the pool size, the timeouts), read
   * when HOOKGATE_DATABASE_URL is set; none: the SQLite file HOOKGATE_DB.
   */
  readonly postgres: Option.Option<PgStore.PgStoreOptions>
  /** The mailer's own settings, read only when HOOKGATE_MAILER selects it. */
  readonly resend: Option.Option<Resend.ResendOptions>
  readonly smtp: Option.Option<SmtpSettings>
  readonly postmark: Option.Option<Postmark.PostmarkOptions>
}

/** `SmtpConfig`, and the CA file's path as given (`config check` prints the path, not the certificates). */
interface SmtpSettings {
  readonly options: Smtp.SmtpOptions
  readonly caFile: Option.Option<string>
}

/** The settings of the mailer HOOKGATE_MAILER selects, read with the others so their problems are reported together. */
const mailerSettings = {
  resend: Resend.ResendConfig,
  smtp: Config.all({ options: Smtp.SmtpConfig, caFile: Config.option(Config.string("SMTP_TLS_CA_FILE")) }),
  postmark: Postmark.PostmarkConfig
}

const RETRY_NAMES = {
  maxAttempts: "HOOKGATE_MAX_ATTEMPTS",
  leaseFor: "HOOKGATE_LEASE",
  sweepEvery: "HOOKGATE_SWEEP_EVERY",
  sendTimeout: "HOOKGATE_SEND_TIMEOUT",
  backoffBase: "HOOKGATE_RETRY_BACKOFF"
} as const

/** The retry options of the settings that could be read (the others are reported already). */
const retryOptions = (read: Partial<Read>): RetryPolicyOptions => ({
  ...(read.maxAttempts === undefined ? {} : { maxAttempts: read.maxAttempts }),
  ...(read.leaseFor === undefined ? {} : { leaseFor: read.leaseFor }),
  ...(read.sweepEvery === undefined ? {} : { sweepEvery: read.sweepEvery }),
  ...(read.sendTimeout === undefined || Option.isNone(read.sendTimeout) ? {} : { sendTimeout: read.sendTimeout.value }),
  ...(read.backoffBase === undefined ? {} : { backoffBase: read.backoffBase })
})

/**
 * Settings that depend on one another: Paddle's API key with its secret, an alert webhook
 * token only with its URL, the retry settings together (the chosen mailer's timeout and the
 * lease are checked where the mailer's settings are read).
 */
const crossProblems = (config: Partial<Read>) => {
  const problems: Array<{ setting: string; message: string }> = []
  if (config.alertWebhookToken !== undefined && Option.isSome(config.alertWebhookToken) && config.alertWebhookUrl !== undefined && Option.isNone(config.alertWebhookUrl)) {
    problems.push({ setting: "HOOKGATE_ALERT_WEBHOOK_TOKEN", message: "is set without HOOKGATE_ALERT_WEBHOOK_URL" })
  }
  problems.push(...retryPolicyProblems(retryOptions(config), { requireLeaseMargin: true, names: RETRY_NAMES }))
  if (config.headersTimeout !== undefined && config.requestTimeout !== undefined &&
    Duration.greaterThan(config.headersTimeout, config.requestTimeout)) {
    problems.push({
      setting: "HOOKGATE_HEADERS_TIMEOUT",
      message: `must not exceed HOOKGATE_REQUEST_TIMEOUT (${Duration.format(config.requestTimeout)}): the request's deadline includes its headers`
    })
  }
  if (config.paddleSecrets !== undefined && Option.isSome(config.paddleSecrets) &&
    config.paddleApiKey !== undefined && Option.isNone(config.paddleApiKey)) {
    problems.push({
      setting: "PADDLE_API_KEY",
      message: "is not set (needed with PADDLE_WEBHOOK_SECRET: the customer's email comes from Paddle's API)"
    })
  }
  return problems
}

/** A send still running when its lease ends may be sent twice: the lease must outlast the mailer's timeout. */
const leaseFitsProblems = (config: Partial<Read>, setting: string, timeout: Duration.DurationInput | undefined) => {
  if (config.leaseFor === undefined || timeout === undefined) return []
  const limit = Duration.decode(timeout)
  return Duration.lessThan(config.leaseFor, Duration.sum(limit, LEASE_MARGIN))
    ? [{ setting: "HOOKGATE_LEASE", message: `must exceed ${setting} (${Duration.format(limit)}) by at least ${Duration.format(LEASE_MARGIN)}` }]
    : []
}

/** A package's own settings, or none with their problems added to `errors`. */
const readOwn = <A>(config: Config.Config<A>, errors: Array<ConfigError.ConfigError>) =>
  Effect.map(Effect.either(config), (result) => {
    if (Either.isRight(result)) return Option.some(result.right)
    errors.push(result.left)
    return Option.none<A>()
  })

/** The settings a `ConfigError` reports missing. */
const missingPaths = (error: ConfigError.ConfigError): ReadonlyArray<ReadonlyArray<string>> =>
  ConfigError.reduceWithContext<undefined, ReadonlyArray<ReadonlyArray<string>>>(error, undefined, {
    andCase: (_, left, right) => [...left, ...right],
    orCase: (_, left, right) => [...left, ...right],
    missingDataCase: (_, path) => [path],
    invalidDataCase: () => [],
    sourceUnavailableCase: () => [],
    unsupportedCase: () => []
  })

/**
 * A package's settings for the checks across settings only, when they could not be read
 * because some are missing: read again with a stand-in for each missing one, so a lease too
 * short for the mailer's timeout is reported in the same run as its missing API key. The
 * stand-ins never leave this function (the refusal already names the missing settings).
 */
const readForChecks = <A>(config: Config.Config<A>, errors: ReadonlyArray<ConfigError.ConfigError>) =>
  Effect.gen(function*() {
    const missing = errors.flatMap(missingPaths).map((path) => [path.join("."), "-"] as const)
    if (missing.length === 0) return Option.none<A>()
    const provider = yield* Effect.configProviderWith(Effect.succeed)
    return yield* Effect.option(config).pipe(
      Effect.withConfigProvider(ConfigProvider.orElse(provider, () => ConfigProvider.fromMap(new Map(missing))))
    )
  })

/** The settings of `config`; when some could not be read, their problems go to `errors` and the others still serve the checks. */
const readSelected = <A>(config: Config.Config<A>, errors: Array<ConfigError.ConfigError>) =>
  Effect.gen(function*() {
    const own: Array<ConfigError.ConfigError> = []
    const read = yield* readOwn(config, own)
    errors.push(...own)
    return { read, forChecks: Option.isSome(read) ? read : yield* readForChecks(config, own) }
  })

/** Whether HOOKGATE_DATABASE_URL is set: Postgres (`PgStore.PgStoreConfig` then reads it, and validates it). */
const postgresSelected = Effect.map(Effect.option(Config.string("HOOKGATE_DATABASE_URL")), Option.isSome)

/**
 * The gateway's settings from the config provider in context. Every setting is read on
 * its own, so one run reports every problem: the ones of single settings, and those
 * between the settings that could be read (all joined in one `ConfigError`).
 */
export const GatewayConfig: Effect.Effect<Settings, ConfigError.ConfigError> = Effect.gen(function*() {
  const read: Partial<Record<keyof Fields, unknown>> = {}
  const errors: Array<ConfigError.ConfigError> = []
  for (const [name, field] of Object.entries(fields) as Array<[keyof Fields, Config.Config<unknown>]>) {
    const result = yield* Effect.either(field)
    if (Either.isRight(result)) read[name] = result.right
    else errors.push(result.left)
  }
  const values = read as Partial<Read>
  const postgres = (yield* postgresSelected) ? yield* readOwn(PgStore.PgStoreConfig, errors) : Option.none<PgStore.PgStoreOptions>()
  // The selected mailer's own settings (ResendConfig, SmtpConfig, PostmarkConfig), and a lease its timeout fits in.
  const none = { read: Option.none<never>(), forChecks: Option.none<never>() }
  const resend = values.mailer === "resend" ? yield* readSelected(mailerSettings.resend, errors) : none
  const smtp = values.mailer === "smtp" ? yield* readSelected(mailerSettings.smtp, errors) : none
  const postmark = values.mailer === "postmark" ? yield* readSelected(mailerSettings.postmark, errors) : none
  const leaseFits = <A>(settings: Option.Option<A>, setting: string, timeout: (a: A) => Duration.DurationInput) =>
    Option.match(settings, { onNone: () => [], onSome: (a) => leaseFitsProblems(values, setting, timeout(a)) })
  const cross = [
    ...crossProblems(values),
    ...leaseFits(resend.forChecks, "RESEND_TIMEOUT", (r) => r.timeout ?? Resend.DEFAULT_TIMEOUT),
    ...leaseFits(smtp.forChecks, "SMTP_TIMEOUT", (s) => s.options.timeout ?? Smtp.DEFAULT_TIMEOUT),
    ...leaseFits(postmark.forChecks, "POSTMARK_TIMEOUT", (p) => p.timeout ?? Postmark.DEFAULT_TIMEOUT)
  ]
  if (cross.length > 0) errors.push(retryPolicyConfigError(cross))
  if (errors.length > 0) return yield* Effect.fail(errors.reduce((all, next) => ConfigError.And(all, next)))
  const { backoffBase: _b, leaseFor: _l, maxAttempts: _m, sendTimeout: _s, sweepEvery: _w, ...rest } = values as Read
  return { ...rest, retry: retryOptions(values), postgres, resend: resend.read, smtp: smtp.read, postmark: postmark.read }
})

export type GatewayConfig = Settings

/**
 * Development settings `serve --dev` (npm start) and the demo supply when none
 * are set. Never for production. The admin token is random for each process
 * and printed at start, so no known token opens a developer's gateway.
 */
export const DEV_SETTINGS: Readonly<Record<string, string>> = {
  HOST: "127.0.0.1",
  STRIPE_WEBHOOK_SECRET: "whsec_dev_stripe_hookgate_local_only",
  CREEM_WEBHOOK_SECRET: "whsec_dev_creem_hookgate_local_only",
  LEMONSQUEEZY_WEBHOOK_SECRET: "dev_lemonsqueezy_hookgate_local_only",
  POLAR_WEBHOOK_SECRET: "polar_whs_dev_hookgate_local_only",
  HOOKGATE_ADMIN_TOKEN: `dev-${randomBytes(18).toString("base64url")}`
}
