// A whole campaign in a child process, for its peak RSS (run by campaigns.ts):
// `count` recipients streamed in, started, sent through the in-process queue by
// a mailer that accepts every batch at once, on a SQLite file. Prints one JSON line.
import { RetryPolicy } from "@hookgate/core"
import { CampaignInProcessQueue, Campaigns, CampaignTemplate } from "@hookgate/core/campaigns"
import { Mailer, SendReceipt } from "@hookgate/core/mail"
import { RecordingAlerter } from "@hookgate/testing"
import { SqliteStore } from "@hookgate/store-sqlite"
import { Duration, Effect, Layer, Logger, LogLevel, Stream } from "effect"

const [count, filename] = [Number(process.argv[2]), process.argv[3]!]

const receipt = new SendReceipt({ mailer: "instant", messageId: "m", acceptedAt: 0 })
const instantMailer = Layer.succeed(Mailer, {
  name: "instant",
  honoursIdempotencyKeys: true,
  callTimeout: Duration.seconds(10),
  send: () => Effect.succeed(receipt),
  sendBatch: (emails) => Effect.succeed(emails.map(() => receipt))
})

const program = Effect.gen(function*() {
  const campaigns = yield* Campaigns
  const queue = yield* CampaignInProcessQueue
  const started = performance.now()
  yield* campaigns.create({
    id: "bench",
    template: new CampaignTemplate({ from: "news@shop.example", subject: "Hello {{name}}", text: "Dear {{name}}, the sale starts today." }),
    recipients: Stream.range(0, count - 1).pipe(Stream.map((i) => ({ email: `reader${i}@example.com`, vars: { name: `Reader ${i}` } })))
  })
  const created = performance.now()
  yield* campaigns.start("bench")
  yield* queue.idle
  const status = yield* campaigns.status("bench")
  if (status.sent !== count) return yield* Effect.dieMessage(`sent ${status.sent} of ${count}`)
  return { createMs: created - started, sendMs: performance.now() - created }
})

const layer = Campaigns.layerInProcess({ concurrency: 2 }).pipe(
  Layer.provideMerge(Layer.mergeAll(
    SqliteStore.layer({ filename }),
    instantMailer,
    RecordingAlerter.layer(),
    RetryPolicy.layer(),
    Logger.minimumLogLevel(LogLevel.Error)
  ))
)

const timings = await Effect.runPromise(Effect.provide(program, layer))
// maxRSS is the process's peak resident set, in kilobytes; the live heap is what a full GC leaves.
const peakRssBytes = process.resourceUsage().maxRSS * 1024
;(globalThis as { gc?: () => void }).gc?.()
const liveHeapBytes = process.memoryUsage().heapUsed
process.stdout.write(JSON.stringify({ peakRssBytes, liveHeapBytes, ...timings }) + "\n")
process.exit(0)
