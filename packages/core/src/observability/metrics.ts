import { Effect, Metric } from "effect"

/** The pipeline's counters; the Node gateway exports them in Prometheus format. */
const webhooks = Metric.counter("hookgate_webhooks_total", {
  description: "Webhooks answered, by provider and outcome",
  incremental: true
})
const sends = Metric.counter("hookgate_sends_total", {
  description: "Mailer calls, by outcome (accepted, transient, rejected, unknown)",
  incremental: true
})
const duplicatesPrevented = Metric.counter("hookgate_duplicates_prevented_total", {
  description: "Replays and competing senders answered without sending",
  incremental: true
})
const possibleDuplicates = Metric.counter("hookgate_possible_duplicates_total", {
  description: "Sends after an uncertain attempt through a mailer that ignores idempotency keys",
  incremental: true
})
const leasesLost = Metric.counter("hookgate_leases_lost_total", {
  description: "Senders that finished after their lease had been taken over",
  incremental: true
})
const alerts = Metric.counter("hookgate_alerts_total", {
  description: "Alerts stored, by kind",
  incremental: true
})

// Tagged counters are built once per tag set: building a metric key hashes its tags.
const memo = <A>(make: (key: string) => A) => {
  const cache = new Map<string, A>()
  return (key: string) => {
    let value = cache.get(key)
    if (value === undefined) cache.set(key, value = make(key))
    return value
  }
}
const webhookCounter = memo((key) => {
  const [provider, outcome] = key.split("\u0000") as [string, string]
  return Metric.increment(Metric.tagged(Metric.tagged(webhooks, "provider", provider), "outcome", outcome))
})
const sendCounter = memo((outcome) => Metric.increment(Metric.tagged(sends, "outcome", outcome)))
const alertCounter = memo((kind) => Metric.increment(Metric.tagged(alerts, "kind", kind)))

export const Metrics = {
  webhook: (provider: string, outcome: string) => webhookCounter(`${provider}\u0000${outcome}`),
  send: (outcome: "accepted" | "transient" | "rejected" | "unknown") => sendCounter(outcome),
  duplicatePrevented: Metric.increment(duplicatesPrevented),
  possibleDuplicate: Metric.increment(possibleDuplicates),
  leaseLost: Metric.increment(leasesLost),
  alert: (kind: string) => alertCounter(kind)
} satisfies Record<string, Effect.Effect<void> | ((...args: Array<any>) => Effect.Effect<void>)>
