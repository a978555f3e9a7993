import { LEASE_MARGIN, RetryPolicyConfig, retryPolicyConfigError } from "@hookgate/core"
import { secretsConfig } from "@hookgate/core/providers"
import { Config, Duration, Either, Option, Redacted } from "effect"
import { randomBytes } from "node:crypto"

/**
 * The gateway's settings, read through Effect's Config (see `settingsProvider`
 * for where from). Secrets are `Redacted`; comma-separated secret lists allow
 * rotation. Every problem is reported, each as one `InvalidData` naming its setting.
 */

const POSITIVE = "must be a positive duration, e.g. \"5 seconds\""

/** A duration that must be above zero: `0 seconds` would make a loop spin (sweep, campaign watcher). */
const positiveDuration = (name: string, fallback: Duration.DurationInput) =>
  Config.duration(name).pipe(
    Config.validate({ message: POSITIVE, validation: (d) => Duration.isFinite(d) && Duration.greaterThan(d, Duration.zero) }),
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

/** A bearer token: an empty one would be a token anyone can send. */
const token = (name: string) =>
  Config.string(name).pipe(Config.validate({ message: "must not be empty", validation: (t) => t.trim() !== "" }), Config.map(Redacted.make))

const settings = Config.all({
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
  /** `postgres://…` selects Postgres (several processes, one database); unset, the SQLite file HOOKGATE_DB. */
  databaseUrl: Config.option(Config.redacted("HOOKGATE_DATABASE_URL")),
  /** Postgres connections per process. */
  dbPoolSize: Config.integer("HOOKGATE_DB_POOL_SIZE").pipe(
    Config.validate({ message: "must be a positive number of connections", validation: (n) => n > 0 }),
    Config.withDefault(10)
  ),
  /** Postgres cancels a statement that runs longer; the request answers 503 `unavailable`. */
  dbStatementTimeout: positiveDuration("HOOKGATE_DB_STATEMENT_TIMEOUT", "5 seconds"),
  /** How long a Postgres statement waits for a connection (opened, or freed by a busy pool). */
  dbConnectTimeout: positiveDuration("HOOKGATE_DB_CONNECT_TIMEOUT", "10 seconds"),
  mailer: Config.literal("outbox", "resend")("HOOKGATE_MAILER").pipe(Config.withDefault("outbox" as const)),
  outbox: Config.string("HOOKGATE_OUTBOX").pipe(Config.withDefault(".hookgate/outbox")),
  /** Read by the Resend package; here so that `config check` reports it missing. */
  resendApiKey: Config.option(Config.redacted("RESEND_API_KEY")),
  /** Resend's per-request timeout (its package reads it too): the lease must outlast it. */
  resendTimeout: Config.duration("RESEND_TIMEOUT").pipe(Config.withDefault(Duration.seconds(10))),
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
  adminToken: Config.option(token("HOOKGATE_ADMIN_TOKEN")),
  /** When set, `GET /metrics` needs `Authorization: Bearer <token>`. */
  metricsToken: Config.option(token("HOOKGATE_METRICS_TOKEN")),
  maxBodyBytes: Config.integer("HOOKGATE_MAX_BODY").pipe(
    Config.validate({ message: "must be a positive number of bytes", validation: (n) => n > 0 }),
    Config.withDefault(256 * 1024)
  ),
  /** How long in-flight requests may run on shutdown before connections are closed. */
  shutdownGrace: Config.duration("HOOKGATE_SHUTDOWN_GRACE").pipe(Config.withDefault(Duration.seconds(10))),
  /** How often an idle gateway looks for running campaigns with batches to send (started from the CLI, or before a restart). */
  campaignPoll: positiveDuration("HOOKGATE_CAMPAIGN_POLL", "5 seconds"),
  /**
   * How often a misconfigured mailer (revoked key, unverified domain, wrong base URL)
   * is probed again; unset: 30 seconds, doubling, at most 10 minutes.
   */
  mailerProbeEvery: Config.option(
    Config.duration("HOOKGATE_MAILER_PROBE_EVERY").pipe(
      Config.validate({ message: POSITIVE, validation: (d) => Duration.isFinite(d) && Duration.greaterThan(d, Duration.zero) })
    )
  ),
  /** `json` (one object per line, the default) or `pretty` (for a human at a terminal). */
  logFormat: Config.literal("json", "pretty")("HOOKGATE_LOG_FORMAT").pipe(Config.withDefault("json" as const)),
  /** The retry settings (lease, sweep cadence, cap, send timeout), validated as `RetryPolicy.layerConfig` does. */
  retry: RetryPolicyConfig
})

/**
 * Settings that depend on one another: what the chosen mailer needs (Resend's key, and a
 * lease its timeout fits in: a send still running when its lease ends may be sent twice),
 * and an alert webhook token only with its URL.
 */
const crossProblems = (config: Config.Config.Success<typeof settings>) => {
  const problems: Array<{ setting: string; message: string }> = []
  if (Option.isSome(config.alertWebhookToken) && Option.isNone(config.alertWebhookUrl)) {
    problems.push({ setting: "HOOKGATE_ALERT_WEBHOOK_TOKEN", message: "is set without HOOKGATE_ALERT_WEBHOOK_URL" })
  }
  if (config.mailer === "resend") problems.push(...resendProblems(config))
  return problems.length === 0 ? Either.right(config) : Either.left(retryPolicyConfigError(problems))
}

const resendProblems = (config: Config.Config.Success<typeof settings>) => {
  const problems: Array<{ setting: string; message: string }> = []
  if (Option.isNone(config.resendApiKey)) problems.push({ setting: "RESEND_API_KEY", message: "is not set (needed with HOOKGATE_MAILER=resend)" })
  const lease = Duration.decode(config.retry.leaseFor ?? "5 minutes")
  if (Duration.lessThan(lease, Duration.sum(config.resendTimeout, LEASE_MARGIN))) {
    problems.push({
      setting: "HOOKGATE_LEASE",
      message: `must exceed RESEND_TIMEOUT (${Duration.format(config.resendTimeout)}) by at least ${Duration.format(LEASE_MARGIN)}`
    })
  }
  return problems
}

export const GatewayConfig = settings.pipe(Config.mapOrFail(crossProblems))

export type GatewayConfig = Config.Config.Success<typeof GatewayConfig>

/**
 * Development settings `serve --dev` (npm start) and the demo supply when none
 * are set. Never for production. The admin token is random for each process
 * and printed at start, so no known token opens a developer's gateway.
 */
export const DEV_SETTINGS: Readonly<Record<string, string>> = {
  HOST: "127.0.0.1",
  STRIPE_WEBHOOK_SECRET: "whsec_dev_stripe_hookgate_local_only",
  CREEM_WEBHOOK_SECRET: "whsec_dev_creem_hookgate_local_only",
  HOOKGATE_ADMIN_TOKEN: `dev-${randomBytes(18).toString("base64url")}`
}
