// Run inside an unpacked, built checkout of release fdd4f77 (generate-fixture.mjs copies it
// there): drives that release's own pipeline, alerts and campaigns into every state the
// upgrade test checks, writing them to the SQLite file given as the first argument.
//
//   node drive-fdd4f77.mjs <file>            every state below, then the SIGKILLed sender
//   node drive-fdd4f77.mjs <file> --mid-send  (internal) a sender that is killed mid-send
//
// Orders (test provider, key `test:<id>`): sent, pending (a transient failure, due again
// after a jittered backoff: a fractional time, as that release stored it), uncertain (the
// mailer accepted, then answered unknown), capped (cap 1) with its alert delivered, capped
// with its alert's delivery failed, failed (rejected) with its alert, and `killed`: leased
// by a process SIGKILLed mid-send. Campaigns: `running` (250 recipients, batch 1 of 3 sent)
// and `paused` (150 recipients, batch 1 of 2 sent, then paused).
import { receive } from "@hookgate/core"
import { Campaigns, CampaignQueue } from "@hookgate/core"
import { layerTestPipeline, makeTestProvider, MailerSteps, paidEvent, ScriptedMailer, signTestRequest, TEST_SECRET } from "@hookgate/core/testing"
import { SqliteStore } from "@hookgate/store-sqlite"
import { spawn } from "node:child_process"
import { Effect, Layer, Stream } from "effect"

const file = process.argv[2]
if (file === undefined) throw new Error("usage: node drive-fdd4f77.mjs <file>")

const webhook = (id) =>
  Effect.flatMap(
    signTestRequest(TEST_SECRET, paidEvent(`evt_${id}`, { orderId: id, email: `${id}@example.com`, product: "course-101", amount: 1900, currency: "usd" })),
    (request) => receive("test", request)
  )

/** One webhook through the old pipeline on the file, with the given mailer, alerter and policy. */
const order = (id, scenario = {}) =>
  Effect.runPromise(
    Effect.either(webhook(id)).pipe(
      Effect.provide(layerTestPipeline({
        store: SqliteStore.layer({ filename: file }),
        providers: [makeTestProvider({ secret: TEST_SECRET })],
        ...scenario
      })),
      Effect.map((result) => console.log(`${id}: ${result._tag === "Right" ? result.right._tag : result.left._tag}`))
    )
  )

if (process.argv.includes("--mid-send")) {
  // The send never ends: once the mailer has been called this says so, and the parent kills it.
  await Effect.runPromise(
    Effect.gen(function*() {
      yield* Effect.fork(webhook("killed"))
      const mailer = yield* ScriptedMailer
      while ((yield* mailer.calls).length === 0) yield* Effect.sleep("10 millis")
      console.log("sending")
      yield* Effect.never
    }).pipe(
      Effect.provide(layerTestPipeline({
        store: SqliteStore.layer({ filename: file }),
        providers: [makeTestProvider({ secret: TEST_SECRET })],
        mailer: { script: [MailerSteps.slow("1 hour")] }
      }))
    )
  )
}

await order("sent")
await order("pending", { mailer: { otherwise: MailerSteps.transient() } })
await order("uncertain", { mailer: { script: [MailerSteps.acceptedThenUnknown], otherwise: MailerSteps.transient() } })
await order("capped-alerted", { mailer: { otherwise: MailerSteps.transient() }, policy: { maxAttempts: 1 } })
await order("capped-unalerted", { mailer: { otherwise: MailerSteps.transient() }, policy: { maxAttempts: 1 }, alerterFails: true })
await order("failed", { mailer: { script: [MailerSteps.rejected("invalid recipient")] } })

// Campaigns: batches collected from the queue; some sent now, the rest left for the next release.
const campaigns = async () => {
  const queued = []
  const queue = Layer.succeed(CampaignQueue, { enqueue: (messages) => Effect.sync(() => queued.push(...messages)) })
  const program = Effect.gen(function*() {
    const service = yield* Campaigns
    const template = { from: "shop@example.com", subject: "Hello {{name}}", text: "Hi {{name}}" }
    const recipients = (prefix, n) => Stream.fromIterable(Array.from({ length: n }, (_, i) => ({ email: `${prefix}${i}@example.com`, vars: { name: `${prefix}${i}` } })))
    yield* service.create({ id: "running", template, recipients: recipients("r", 250) })
    yield* service.start("running")
    yield* service.sendBatch(queued.find((m) => m.campaignId === "running"))
    yield* service.create({ id: "paused", template, recipients: recipients("p", 150) })
    yield* service.start("paused")
    yield* service.sendBatch(queued.find((m) => m.campaignId === "paused"))
    yield* service.pause("paused")
    return [yield* service.status("running"), yield* service.status("paused")]
  })
  const statuses = await Effect.runPromise(program.pipe(
    Effect.provide(Campaigns.layer.pipe(
      Layer.provideMerge(Layer.mergeAll(
        queue,
        layerTestPipeline({ store: SqliteStore.layer({ filename: file }), providers: [] })
      ))
    ))
  ))
  for (const status of statuses) console.log(JSON.stringify(status))
}
await campaigns()

// A sender SIGKILLed mid-send: the order stays leased, its send possibly out.
await new Promise((resolve, reject) => {
  const child = spawn(process.execPath, [process.argv[1], file, "--mid-send"], { stdio: ["ignore", "pipe", "inherit"] })
  child.stdout.on("data", (chunk) => chunk.toString().includes("sending") && child.kill("SIGKILL"))
  child.on("exit", (code, signal) => signal === "SIGKILL" ? resolve() : reject(new Error(`mid-send exited ${code}`)))
})
console.log("killed: SIGKILLed mid-send")

// One self-contained file: the WAL folded in, the journal back to DELETE (today's store sets WAL again).
const { default: Database } = await import("better-sqlite3")
const db = new Database(file)
db.pragma("wal_checkpoint(TRUNCATE)")
db.pragma("journal_mode = DELETE")
db.close()
