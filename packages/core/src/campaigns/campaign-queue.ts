import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type { CampaignBatchMessage } from "./campaign.js"
import type { QueueUnavailable } from "../queue/errors.js"

/**
 * Where campaign batch messages go: a Cloudflare Queue on Workers, the
 * in-process queue on Node. Delivery is at least once; the ledger makes a
 * repeated batch message harmless.
 */
export class CampaignQueue extends Context.Tag("@hookgate/core/CampaignQueue")<CampaignQueue, {
  readonly enqueue: (messages: ReadonlyArray<CampaignBatchMessage>) => Effect.Effect<void, QueueUnavailable>
  /**
   * Sends fresh messages delivered no sooner than `delay` (a queue that can delay a message
   * provides it; Cloudflare Queues' `delaySeconds`). With it, a batch held by an open
   * `MailerCircuit` is sent again as a new message and its delivery acknowledged, rather
   * than retried: a mail outage, however long, never spends the queue's retry limit
   * (`max_retries`) nor sends held batches to the dead letters.
   */
  readonly enqueueLater?: (
    messages: ReadonlyArray<CampaignBatchMessage>,
    delay: Duration.Duration
  ) => Effect.Effect<void, QueueUnavailable>
}>() {}
