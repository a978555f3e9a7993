/**
 * The pipeline's metrics, one function (or effect) per event: `Metrics.webhook(provider, outcome)`,
 * `Metrics.send(outcome)`, … The Node gateway exports them in Prometheus format.
 */
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as MetricKey from "effect/MetricKey"
import type * as MetricKeyType from "effect/MetricKeyType"

/** The pipeline's counters; the Node gateway exports them in Prometheus format. */
const webhooks = MetricKey.counter("hookgate_webhooks_total", {
  description: "Webhooks answered, by provider and outcome",
  incremental: true
})
const sends = MetricKey.counter("hookgate_sends_total", {
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
const alerts = MetricKey.counter("hookgate_alerts_total", {
  description: "Alerts stored, by kind",
  incremental: true
})

const reconciledKey = MetricKey.counter("hookgate_reconciled_objects_total", {
  description: "Objects a reconciliation run listed at a provider, by provider and outcome (known, new, unpaid, unfulfillable, unsendable)",
  incremental: true
})

const messages = MetricKey.counter("hookgate_queue_messages_total", {
  description: "Queue message deliveries through Consumer.once, by outcome (ran, duplicate, in_progress, failed, unrecorded)",
  incremental: true
})
const deadLetters = MetricKey.counter("hookgate_dead_letters_total", {
  description: "Messages a queue gave up on, stored for the operator, by queue",
  incremental: true
})
const campaignBatches = MetricKey.counter("hookgate_campaign_batches_total", {
  description: "Campaign batch deliveries, by outcome (sent, done, in_progress, not_running, empty, lease_lost, failed)",
  incremental: true
})
const campaignRecipientsKey = MetricKey.counter("hookgate_campaign_recipients_total", {
  description: "Campaign recipients recorded, by outcome (sent, failed, retry)",
  incremental: true
})
const campaignDuplicatesCounter = Metric.counter("hookgate_campaign_duplicates_prevented_total", {
  description: "Recipients of redelivered campaign batches answered without sending again",
  incremental: true
})
const campaignStatusGauge = MetricKey.gauge("hookgate_campaign_recipients", {
  description: "A campaign's ledger when its status was last read, by campaign and counter"
})

// Tagged metrics are built once per tag set, with the tags in their key: an update then
// finds its hook at once, where a metric tagged with `Metric.tagged` rebuilds and hashes
// its key on every update.
const memo = <A>(make: (key: string) => A) => {
  const cache = new Map<string, A>()
  return (key: string) => {
    let value = cache.get(key)
    if (value === undefined) cache.set(key, value = make(key))
    return value
  }
}
const withTags = <T extends MetricKeyType.MetricKeyType<any, any>>(
  key: MetricKey.MetricKey<T>,
  ...tags: ReadonlyArray<readonly [string, string]>
): MetricKey.MetricKey<T> => tags.reduce((tagged, [name, value]) => MetricKey.tagged(tagged, name, value), key)
const webhookCounter = memo((key) => {
  const [provider, outcome] = key.split("\u0000") as [string, string]
  return Metric.increment(Metric.fromMetricKey(withTags(webhooks, ["provider", provider], ["outcome", outcome])))
})
const counterBy = (key: MetricKey.MetricKey.Counter<number>, tag: string) =>
  memo((value) => Metric.fromMetricKey(withTags(key, [tag, value])))
const sendCounter = memo((outcome) => Metric.increment(counterBy(sends, "outcome")(outcome)))
const alertCounter = memo((kind) => Metric.increment(counterBy(alerts, "kind")(kind)))
const reconcileCounter = memo((key) => {
  const [provider, outcome] = key.split("\u0000") as [string, string]
  return Metric.fromMetricKey(withTags(reconciledKey, ["provider", provider], ["outcome", outcome]))
})
const messageCounter = memo((outcome) => Metric.increment(counterBy(messages, "outcome")(outcome)))
const deadLetterCounter = memo((queue) => Metric.increment(counterBy(deadLetters, "queue")(queue)))
const batchCounter = memo((outcome) => Metric.increment(counterBy(campaignBatches, "outcome")(outcome)))
const recipientCounter = counterBy(campaignRecipientsKey, "outcome")
const campaignGauge = memo((key) => {
  const [campaign, counter] = key.split("\u0000") as [string, string]
  return Metric.fromMetricKey(withTags(campaignStatusGauge, ["campaign", campaign], ["counter", counter]))
})

/**
 * The label every webhook to a provider that is not mounted counts under: the path is the
 * sender's to choose, so its name as a label value would add a series per request.
 */
export const UNKNOWN_PROVIDER_LABEL = "unknown"

export const webhook = (provider: string, outcome: string) =>
  webhookCounter(`${outcome === "UnknownProvider" ? UNKNOWN_PROVIDER_LABEL : provider}\u0000${outcome}`)
export const send = (outcome: "accepted" | "transient" | "rejected" | "unknown" | "misconfigured") => sendCounter(outcome)
export const duplicatePrevented = Metric.increment(duplicatesPrevented)
export const possibleDuplicate = Metric.increment(possibleDuplicates)
export const leaseLost = Metric.increment(leasesLost)
export const alert = (kind: string) => alertCounter(kind)
export const reconciled = (provider: string, outcome: "known" | "new" | "unpaid" | "unfulfillable" | "unsendable", count: number) =>
  count === 0 ? Effect.void : Metric.incrementBy(reconcileCounter(`${provider}\u0000${outcome}`), count)
export const message = (outcome: "ran" | "duplicate" | "in_progress" | "failed" | "unrecorded") => messageCounter(outcome)
export const deadLetter = (queue: string) => deadLetterCounter(queue)
export const campaignBatch = (outcome: string) => batchCounter(outcome)
export const campaignRecipients = (outcome: "sent" | "failed" | "retry", count: number) =>
  count === 0 ? Effect.void : Metric.incrementBy(recipientCounter(outcome), count)
export const campaignDuplicatesPrevented = (count: number) => Metric.incrementBy(campaignDuplicatesCounter, count)
export const campaignStatus = (campaign: string, counters: Readonly<Record<string, number>>) =>
  Effect.forEach(Object.entries(counters), ([counter, value]) => Metric.set(campaignGauge(`${campaign}\u0000${counter}`), value), {
    discard: true
  })
