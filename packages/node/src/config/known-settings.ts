import { RENAMED_SETTINGS } from "@hookgate/core"

/**
 * Every `HOOKGATE_*` name the gateway and its commands read. A name outside this
 * list (a typo: `HOOKGATE_MAX_ATTEMPT`) would be ignored without a word, its
 * default used instead; `unknownSettings` finds them so every command warns.
 */
export const KNOWN_SETTINGS: ReadonlyArray<string> = [
  "HOOKGATE_ADMIN_TOKEN",
  "HOOKGATE_ALERT_WEBHOOK_TIMEOUT",
  "HOOKGATE_ALERT_WEBHOOK_TOKEN",
  "HOOKGATE_ALERT_WEBHOOK_URL",
  "HOOKGATE_CAMPAIGN_POLL",
  "HOOKGATE_CONFIG",
  "HOOKGATE_DATABASE_URL",
  "HOOKGATE_DB",
  "HOOKGATE_DB_BUSY_TIMEOUT",
  "HOOKGATE_DB_CONNECT_TIMEOUT",
  "HOOKGATE_DB_POOL_SIZE",
  "HOOKGATE_DB_STATEMENT_TIMEOUT",
  "HOOKGATE_FROM",
  "HOOKGATE_HEADERS_TIMEOUT",
  "HOOKGATE_LEASE",
  "HOOKGATE_LOG_FORMAT",
  "HOOKGATE_MAILER",
  "HOOKGATE_MAILER_PROBE_EVERY",
  "HOOKGATE_MAX_ATTEMPTS",
  "HOOKGATE_MAX_BODY",
  "HOOKGATE_METRICS",
  "HOOKGATE_METRICS_TOKEN",
  "HOOKGATE_OUTBOX",
  "HOOKGATE_OWNER_EMAIL",
  "HOOKGATE_RECONCILE_EVERY",
  "HOOKGATE_REQUEST_TIMEOUT",
  "HOOKGATE_RETRY_BACKOFF",
  "HOOKGATE_SEND_TIMEOUT",
  "HOOKGATE_SHUTDOWN_GRACE",
  "HOOKGATE_SWEEP_EVERY",
  "HOOKGATE_URL",
  "HOOKGATE_WEBHOOK_CONCURRENCY",
  "HOOKGATE_WEBHOOK_QUEUE_TIMEOUT",
  // Read by the Postgres store's tests to find a local server, not by the gateway; known so they do not warn.
  "HOOKGATE_PG_BIN"
]

/**
 * The names the gateway reads for its providers and mailers. Their prefixes are shared with
 * other programs (an app's own `STRIPE_SECRET_KEY` in the environment), so an unknown one is
 * warned about only in a settings file, which is hookgate's alone (`SMTP_PASWORD=…` there would
 * otherwise leave AUTH unset without a word).
 */
export const PLUGIN_SETTINGS: ReadonlyArray<string> = [
  "STRIPE_WEBHOOK_SECRET",
  "CREEM_WEBHOOK_SECRET",
  "LEMONSQUEEZY_WEBHOOK_SECRET",
  "POLAR_WEBHOOK_SECRET",
  "PADDLE_WEBHOOK_SECRET",
  "PADDLE_API_KEY",
  "PADDLE_ENVIRONMENT",
  "PADDLE_API_BASE_URL",
  "RESEND_API_KEY",
  "RESEND_BASE_URL",
  "RESEND_TIMEOUT",
  "SMTP_HOST",
  "SMTP_PORT",
  "SMTP_SECURITY",
  "SMTP_USER",
  "SMTP_PASSWORD",
  "SMTP_POOL_SIZE",
  "SMTP_TIMEOUT",
  "SMTP_TLS_CA_FILE",
  "SMTP_TLS_SERVERNAME",
  "POSTMARK_SERVER_TOKEN",
  "POSTMARK_BASE_URL",
  "POSTMARK_MESSAGE_STREAM",
  "POSTMARK_TIMEOUT"
]

const PLUGIN_PREFIXES = Array.from(new Set(PLUGIN_SETTINGS.map((name) => name.slice(0, name.indexOf("_") + 1))))
const ALL_KNOWN = [...KNOWN_SETTINGS, ...PLUGIN_SETTINGS]

/** The former names, in the SDK and the Worker, of a setting the gateway names (core's `RENAMED_SETTINGS`). */
const OTHER_NAMES: Readonly<Record<string, string>> = Object.fromEntries(
  Object.values(RENAMED_SETTINGS).filter((s) => s.former.startsWith("HOOKGATE_")).map((s) => [s.former, s.name])
)

/** Edit distance, for "did you mean". */
const distance = (a: string, b: string) => {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.length]!
}

/** The known name closest to `name`, when it is close enough to be a typo of it. */
export const closestSetting = (name: string): string | undefined => {
  if (OTHER_NAMES[name] !== undefined) return OTHER_NAMES[name]
  let best: { name: string; d: number } | undefined
  for (const known of ALL_KNOWN) {
    const d = distance(name, known)
    if (best === undefined || d < best.d) best = { name: known, d }
  }
  return best !== undefined && best.d <= Math.max(2, Math.floor(name.length / 6)) ? best.name : undefined
}

/**
 * One warning per name among `names` that no part of the gateway reads: every `HOOKGATE_*`
 * name, and in a settings file (`plugins: true`) the names of the plugins' prefixes too
 * (`SMTP_*`, `POSTMARK_*`, `PADDLE_*`, …).
 */
export const unknownSettings = (names: Iterable<string>, where: string, options: { readonly plugins?: boolean } = {}): ReadonlyArray<string> =>
  Array.from(new Set(names))
    .filter((name) =>
      (name.startsWith("HOOKGATE_") || (options.plugins === true && PLUGIN_PREFIXES.some((prefix) => name.startsWith(prefix)))) &&
      !ALL_KNOWN.includes(name)
    )
    .sort()
    .map((name) => {
      const near = closestSetting(name)
      return `${name} (${where}) is not a hookgate setting and is ignored${near === undefined ? "" : `: did you mean ${near}?`}`
    })
