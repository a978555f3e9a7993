import { secretsConfig } from "@hookgate/core/providers"
import { Config, Duration } from "effect"

/**
 * The gateway's settings, read from the environment through Effect's Config.
 * Secrets are `Redacted`; comma-separated secret lists allow rotation.
 */

export const GatewayConfig = Config.all({
  // 0 asks the system for a free port (tests, the demo).
  port: Config.integer("PORT").pipe(
    Config.validate({ message: "must be a port number (0 for any free port)", validation: (n) => n >= 0 && n <= 65535 }),
    Config.withDefault(8787)
  ),
  db: Config.string("HOOKGATE_DB").pipe(Config.withDefault(".hookgate/hookgate.db")),
  /** How long a write waits for another process's lock before the store reports itself unavailable. */
  dbBusyTimeout: Config.duration("HOOKGATE_DB_BUSY_TIMEOUT").pipe(Config.withDefault("5 seconds" as const)),
  mailer: Config.literal("outbox", "resend")("HOOKGATE_MAILER").pipe(Config.withDefault("outbox" as const)),
  outbox: Config.string("HOOKGATE_OUTBOX").pipe(Config.withDefault(".hookgate/outbox")),
  from: Config.string("HOOKGATE_FROM").pipe(Config.withDefault("hookgate <orders@hookgate.localhost>")),
  ownerEmail: Config.option(Config.string("HOOKGATE_OWNER_EMAIL")),
  stripeSecrets: Config.option(secretsConfig("STRIPE_WEBHOOK_SECRET")),
  creemSecrets: Config.option(secretsConfig("CREEM_WEBHOOK_SECRET")),
  adminToken: Config.option(Config.redacted("HOOKGATE_ADMIN_TOKEN")),
  maxBodyBytes: Config.integer("HOOKGATE_MAX_BODY").pipe(
    Config.validate({ message: "must be a positive number of bytes", validation: (n) => n > 0 }),
    Config.withDefault(256 * 1024)
  ),
  /** How long in-flight requests may run on shutdown before connections are closed. */
  shutdownGrace: Config.duration("HOOKGATE_SHUTDOWN_GRACE").pipe(Config.withDefault("10 seconds" as const)),
  /**
   * How often a misconfigured mailer (revoked key, unverified domain, wrong base URL)
   * is probed again; unset: 30 seconds, doubling, at most 10 minutes.
   */
  mailerProbeEvery: Config.option(
    Config.duration("HOOKGATE_MAILER_PROBE_EVERY").pipe(
      Config.validate({ message: "must be a positive duration", validation: (d) => Duration.toMillis(d) > 0 })
    )
  ),
  /** How often an idle gateway looks for running campaigns with batches to send (started from the CLI, or before a restart). */
  campaignPoll: Config.duration("HOOKGATE_CAMPAIGN_POLL").pipe(Config.withDefault("5 seconds" as const))
})

export type GatewayConfig = Config.Config.Success<typeof GatewayConfig>

/** Development secrets `npm start` supplies when none are set. Never for production. */
export const DEV_SETTINGS: Readonly<Record<string, string>> = {
  STRIPE_WEBHOOK_SECRET: "whsec_dev_stripe_hookgate_local_only",
  CREEM_WEBHOOK_SECRET: "whsec_dev_creem_hookgate_local_only",
  HOOKGATE_ADMIN_TOKEN: "dev-admin-token"
}
