import { Worker } from "node:worker_threads"
import { addJobTallies, type Job, runJob, shardCount, withShards } from "./jobs.js"
import { Effect } from "effect"

const workerUrl = new URL("./worker.js", import.meta.url)

/**
 * Runs a job's shards on `workers` threads, each a contiguous range of shards,
 * and adds their tallies in shard order. A shard's result depends on the seed and
 * its index only, so the table is the same for any number of workers.
 */
export const runInWorkers = async (job: Job, workers: number): Promise<unknown> => {
  const shards = shardCount(job)
  const threads = Math.max(1, Math.min(workers, shards))
  if (threads === 1) return Effect.runPromise(runJob(job))
  const ranges = Array.from({ length: threads }, (_, i) => ({
    from: Math.floor((i * shards) / threads),
    to: Math.floor(((i + 1) * shards) / threads)
  }))
  const tallies = await Promise.all(ranges.map((range) =>
    new Promise<unknown>((resolve, reject) => {
      const worker = new Worker(workerUrl, { workerData: withShards(job, range) })
      worker.once("message", resolve)
      worker.once("error", reject)
      worker.once("exit", (code) => code === 0 || reject(new Error(`simulation worker exited with ${code}`)))
    })
  ))
  return tallies.reduce((total, tally) => addJobTallies(job.kind, total, tally))
}
