import { Effect } from "effect"
import { parentPort, workerData } from "node:worker_threads"
import { type Job, runJob } from "./jobs.js"

/** A worker thread of `runInWorkers`: runs its shards and posts the tally. */
parentPort?.postMessage(await Effect.runPromise(runJob(workerData as Job)))
