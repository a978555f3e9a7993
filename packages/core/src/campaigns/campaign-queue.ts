import * as Context from "effect/Context"
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
}>() {}
