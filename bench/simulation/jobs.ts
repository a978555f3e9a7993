import { Effect } from "effect"
import { addCampaignTallies, type CampaignConfig, type CampaignTally, DEFAULT_CAMPAIGN_SHARD, simulateCampaign } from "./campaign.js"
import { DEFAULT_SHARD, type OrdersConfig, simulateOrders } from "./orders.js"
import { addQueueTallies, DEFAULT_QUEUE_SHARD, type QueueConfig, type QueueTally, simulateQueue } from "./queue.js"
import type { ShardRange } from "./shards.js"
import { addTallies, type OrderTally } from "./tally.js"

/** One workload of a run, as a worker thread receives it (plain data). */
export type Job =
  | { readonly kind: "orders"; readonly config: OrdersConfig }
  | { readonly kind: "queue"; readonly config: QueueConfig }
  | { readonly kind: "campaign"; readonly config: CampaignConfig }

/** How many shards the job has. */
export const shardCount = (job: Job): number => {
  switch (job.kind) {
    case "orders":
      return Math.ceil(job.config.orders / (job.config.shard ?? DEFAULT_SHARD))
    case "queue":
      return Math.ceil(job.config.messages / (job.config.shard ?? DEFAULT_QUEUE_SHARD))
    case "campaign":
      return Math.ceil(job.config.recipients / (job.config.shard ?? DEFAULT_CAMPAIGN_SHARD))
  }
}

/** The job restricted to the shards in `range`. */
export const withShards = (job: Job, range: ShardRange): Job => ({ ...job, config: { ...job.config, shards: range } }) as Job

/** Runs the job (its shards one after another) in this thread. */
export const runJob = (job: Job): Effect.Effect<unknown, unknown> => {
  switch (job.kind) {
    case "orders":
      return simulateOrders(job.config)
    case "queue":
      return simulateQueue(job.config)
    case "campaign":
      return simulateCampaign(job.config)
  }
}

/** Two tallies of disjoint shards of one job as one. */
export const addJobTallies = (kind: Job["kind"], a: unknown, b: unknown): unknown =>
  kind === "orders"
    ? addTallies(a as OrderTally, b as OrderTally)
    : kind === "queue"
    ? addQueueTallies(a as QueueTally, b as QueueTally)
    : addCampaignTallies(a as CampaignTally, b as CampaignTally)
