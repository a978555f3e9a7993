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
  // Read by the Postgres store's tests to find a local server, not by the gateway; known so they do not warn.
  "HOOKGATE_PG_BIN"
]

/** The SDK's and the Worker's names for a concept the gateway names otherwise. */
const OTHER_NAMES: Readonly<Record<string, string>> = {
  HOOKGATE_ALERT_EMAIL_TO: "HOOKGATE_OWNER_EMAIL",
  HOOKGATE_ALERT_EMAIL_FROM: "HOOKGATE_FROM"
}

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
  for (const known of KNOWN_SETTINGS) {
    const d = distance(name, known)
    if (best === undefined || d < best.d) best = { name: known, d }
  }
  return best !== undefined && best.d <= Math.max(2, Math.floor(name.length / 6)) ? best.name : undefined
}

/** One warning per `HOOKGATE_*` name among `names` that no part of the gateway reads. */
export const unknownSettings = (names: Iterable<string>, where: string): ReadonlyArray<string> =>
  Array.from(new Set(names))
    .filter((name) => name.startsWith("HOOKGATE_") && !KNOWN_SETTINGS.includes(name))
    .sort()
    .map((name) => {
      const near = closestSetting(name)
      return `${name} (${where}) is not a hookgate setting and is ignored${near === undefined ? "" : `: did you mean ${near}?`}`
    })
