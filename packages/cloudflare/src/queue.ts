import { spanWhenTraced } from "@hookgate/core"
import { type CampaignBatchMessage, CampaignQueue, Campaigns } from "@hookgate/core/campaigns"
import { Decision, delaySeconds, type Delivery, QueueUnavailable } from "@hookgate/core/queue"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { binding, type WorkerEnv } from "./env.js"
import type { MissingBinding } from "./errors.js"
import type { WorkerMessage, WorkerMessageBatch, WorkerQueueProducer } from "./runtime-types.js"

/**
 * A queue consumer for `makeWorker({ queues })`: a decision per delivery.
 * `Consumer.handler(...)` (act once per message key), `deadLetterHandler(...)`
 * (store and alert) and `campaignBatches` are consumers; so is any function of
 * this shape.
 */
export type QueueConsumer<R> = (delivery: Delivery) => Effect.Effect<Decision, never, R>

/**
 * Runs a consumer over a batch, acknowledging last: each message is `ack()`ed
 * once its work is recorded (or was already done), or `retry()`ed with the
 * decision's delay in whole seconds (the RetryPolicy's backoff). A consumer
 * that dies leaves its message to be retried with no delay.
 */
export const consumeBatch = <R>(batch: WorkerMessageBatch, consumer: QueueConsumer<R>, options: { readonly concurrency?: number } = {}) =>
  Effect.forEach(
    batch.messages,
    (message: WorkerMessage) =>
      consumer({ queue: batch.queue, id: message.id, body: message.body, attempts: message.attempts }).pipe(
        Effect.catchAllCause((cause) =>
          Effect.as(Effect.logError("queue consumer died; the message is retried", cause), Decision.Retry({ delay: Duration.zero }) as Decision)
        ),
        Effect.flatMap((decision) =>
          Effect.sync(() =>
            decision._tag === "Ack"
              ? message.ack()
              : message.retry({ delaySeconds: delaySeconds(decision.delay) })
          )
        ),
        Effect.annotateLogs({ queue: batch.queue, messageId: message.id, attempts: message.attempts })
      ),
    { concurrency: options.concurrency ?? 4, discard: true }
  ).pipe(spanWhenTraced("queue.batch", { queue: batch.queue, messages: batch.messages.length }))

/** The consumer of campaign batch messages: `Campaigns` from the Worker's layer. */
export const campaignBatches: QueueConsumer<Campaigns> = (delivery) => Effect.flatMap(Campaigns, (campaigns) => campaigns.handle(delivery))

const QUEUE_SEND_BATCH = 100 // a Queue's sendBatch takes at most 100 messages

/**
 * `CampaignQueue` on a Queue producer binding (default `CAMPAIGNS`). It can delay a message
 * (`delaySeconds`, at most 12 hours), so a batch held while the mailer is misconfigured is
 * sent again as a new message at the breaker's next probe and its delivery acknowledged:
 * an outage of any length never reaches the consumer's `max_retries`.
 */
export const layerCampaignQueue = (
  options: { readonly binding?: string } = {}
): Layer.Layer<CampaignQueue, MissingBinding, WorkerEnv> =>
  Layer.effect(
    CampaignQueue,
    Effect.map(binding<WorkerQueueProducer>(options.binding ?? "CAMPAIGNS", "sendBatch"), (producer) => {
      const send = (messages: ReadonlyArray<CampaignBatchMessage>, delay?: Duration.Duration) =>
        Effect.forEach(
          Array.from({ length: Math.ceil(messages.length / QUEUE_SEND_BATCH) }, (_, i) => messages.slice(i * QUEUE_SEND_BATCH, (i + 1) * QUEUE_SEND_BATCH)),
          (chunk) =>
            Effect.tryPromise({
              // Plain objects: the message is serialised (JSON or structured clone) either way.
              try: () =>
                producer.sendBatch(chunk.map((message) => ({
                  body: { ...message },
                  ...(delay === undefined ? {} : { delaySeconds: delaySeconds(delay) })
                }))),
              catch: (cause) => new QueueUnavailable({ queue: options.binding ?? "CAMPAIGNS", cause })
            }),
          { discard: true }
        )
      return { enqueue: (messages) => send(messages), enqueueLater: (messages, delay) => send(messages, delay) }
    })
  )
