// A Worker with real Cloudflare Queues (run in Miniflare by queues.test.ts): a job queue
// consumed once per key with a dead-letter queue, and campaign batches. Side effects and
// sent emails are rows in D1, so the test can count them.
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import * as SqlClient from "@effect/sql/SqlClient"
import { Cloudflare } from "@hookgate/cloudflare"
import { RetryPolicy } from "@hookgate/core"
import { Alerter } from "@hookgate/core/alerts"
import { campaignBatchMessage, CampaignQueue, Campaigns, CampaignTemplate } from "@hookgate/core/campaigns"
import { Mailer, MailerCircuit, Misconfigured, SendReceipt } from "@hookgate/core/mail"
import { Providers } from "@hookgate/core/providers"
import { Consumer, deadLetterHandler } from "@hookgate/core/queue"
import { TestRenderer } from "@hookgate/testing"
import { Context, Effect, Layer, Schedule, Schema, Stream } from "effect"

class Jobs extends Context.Tag("test/Jobs")<Jobs, { readonly send: (body: unknown) => Promise<unknown> }>() {}

const JobsLayer = Layer.effect(Jobs, Cloudflare.binding<Jobs["Type"] & Cloudflare.WorkerQueueProducer>("JOBS", "send"))

const Tables = Layer.effectDiscard(Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.zipRight(
    sql`CREATE TABLE IF NOT EXISTS test_effects (job_key TEXT NOT NULL, attempts INTEGER NOT NULL)`,
    Effect.all([
      sql`CREATE TABLE IF NOT EXISTS test_emails (idempotency_key TEXT NOT NULL, recipient TEXT NOT NULL, subject TEXT NOT NULL)`,
      // A row here: the mail account is misconfigured (every send answers Misconfigured).
      sql`CREATE TABLE IF NOT EXISTS test_outage (since INTEGER NOT NULL)`,
      sql`CREATE TABLE IF NOT EXISTS test_deliveries (body TEXT NOT NULL, attempts INTEGER NOT NULL)`
    ])
  )))

/** A mailer that "sends" by writing rows to D1, honouring idempotency keys as Resend does. */
const RecordingMailer = Layer.effect(Mailer, Effect.map(SqlClient.SqlClient, (sql) => {
  const receipts = (n: number, key: string) =>
    Array.from({ length: n }, (_, i) => new SendReceipt({ mailer: "d1", messageId: `${key}#${i}`, acceptedAt: Date.now() }))
  // While the outage lasts, every call fails as a revoked or unverified account does.
  const outage = Effect.flatMap(sql<{ n: number }>`SELECT COUNT(*) AS n FROM test_outage`, (rows) =>
    Number(rows[0]?.n) > 0
      ? Effect.fail(new Misconfigured({ mailer: "d1", code: "restricted_api_key", detail: "the key was revoked" }))
      : Effect.void)
  const seen = (key: string) =>
    Effect.map(sql<{ n: number }>`SELECT COUNT(*) AS n FROM test_emails WHERE idempotency_key = ${key}`, (rows) => Number(rows[0]?.n) > 0)
  return Mailer.of({
    name: "d1",
    honoursIdempotencyKeys: true,
    send: (email, { idempotencyKey }) =>
      Effect.gen(function*() {
        yield* outage
        if (!(yield* seen(idempotencyKey))) {
          yield* sql`INSERT INTO test_emails VALUES (${idempotencyKey}, ${email.to}, ${email.subject})`
        }
        return receipts(1, idempotencyKey)[0]!
      }).pipe(Effect.catchTag("SqlError", Effect.die)),
    sendBatch: (emails, { idempotencyKey }) =>
      Effect.gen(function*() {
        yield* outage
        if (!(yield* seen(idempotencyKey))) {
          const rows = JSON.stringify(emails.map((e) => ({ t: e.to, s: e.subject })))
          yield* sql`INSERT INTO test_emails SELECT ${idempotencyKey}, json_extract(value, '$.t'), json_extract(value, '$.s') FROM json_each(${rows})`
        }
        return receipts(emails.length, idempotencyKey)
      }).pipe(Effect.catchTag("SqlError", Effect.die))
  })
}))

const Job = Schema.Struct({ key: Schema.String, fail: Schema.optional(Schema.Literal("once", "always")) })

const template = new CampaignTemplate({ from: "news@shop.example", subject: "Hello {{name}}", text: "Hello {{name}}" })

const json = (body: unknown, status = 200) => HttpServerResponse.unsafeJson(body, { status })

const router = HttpRouter.empty.pipe(
  HttpRouter.post("/test/jobs", Effect.gen(function*() {
    const body = yield* HttpServerRequest.schemaBodyJson(Job)
    const jobs = yield* Jobs
    yield* Effect.promise(() => jobs.send(body))
    return json({ queued: body.key }, 202)
  })),
  HttpRouter.post("/test/campaigns", Effect.gen(function*() {
    const { count, id } = yield* HttpServerRequest.schemaBodyJson(Schema.Struct({ id: Schema.String, count: Schema.Int }))
    const campaigns = yield* Campaigns
    yield* campaigns.create({
      id,
      template,
      recipients: Stream.range(0, count - 1).pipe(Stream.map((i) => ({ email: `reader${i}@example.com`, vars: { name: `Reader ${i}` } })))
    })
    return json(yield* campaigns.start(id))
  })),
  // Every batch message of the campaign, sent again: what a queue redelivering them would do.
  HttpRouter.post("/test/campaigns/:id/redeliver", Effect.gen(function*() {
    const { id } = yield* HttpRouter.schemaPathParams(Schema.Struct({ id: Schema.String }))
    const status = yield* Effect.flatMap(Campaigns, (c) => c.status(id))
    const batches = Math.ceil(status.total / 100)
    yield* Effect.flatMap(CampaignQueue, (q) => q.enqueue(Array.from({ length: batches }, (_, i) => campaignBatchMessage(id, i + 1))))
    return json({ redelivered: batches }, 202)
  })),
  // The mail account breaks (`{ "on": true }`) or is fixed.
  HttpRouter.post("/test/outage", Effect.gen(function*() {
    const { on } = yield* HttpServerRequest.schemaBodyJson(Schema.Struct({ on: Schema.Boolean }))
    const sql = yield* SqlClient.SqlClient
    yield* on ? sql`INSERT INTO test_outage VALUES (${Date.now()})` : sql`DELETE FROM test_outage`
    return json({ outage: on })
  })),
  HttpRouter.get("/test/campaigns/:id", Effect.gen(function*() {
    const { id } = yield* HttpRouter.schemaPathParams(Schema.Struct({ id: Schema.String }))
    return json(yield* Effect.flatMap(Campaigns, (c) => c.status(id)))
  })),
  HttpRouter.catchAll((error) => Effect.succeed(json({ error: String(error) }, 500)))
)

const Base = Layer.mergeAll(
  Providers.layer(),
  TestRenderer.layer,
  // No backoff in the test: a retried message comes back at once.
  RetryPolicy.layer({ backoffBase: "0 millis", inRequestBase: 0 }),
  Alerter.layerLog(),
  // Probes of a misconfigured mailer every second (the default starts at 30 seconds).
  MailerCircuit.layer({ probeEvery: Schedule.spaced("1 second") }),
  JobsLayer,
  Tables
).pipe(
  Layer.provideMerge(RecordingMailer),
  Layer.provideMerge(Cloudflare.layerD1Store({ binding: "DB", migrate: true }))
)

export default Cloudflare.makeWorker({
  layer: Campaigns.layer().pipe(Layer.provideMerge(Cloudflare.layerCampaignQueue({ binding: "CAMPAIGNS" })), Layer.provideMerge(Base)),
  router,
  queues: {
    "hookgate-jobs": Consumer.handler({
      schema: Job,
      key: (job) => job.key,
      handle: (job, delivery) =>
        job.fail === "always" || (job.fail === "once" && delivery.attempts === 1)
          ? Effect.fail(`job ${job.key} failed on delivery ${delivery.attempts}`)
          : Effect.flatMap(SqlClient.SqlClient, (sql) =>
            sql`INSERT INTO test_effects VALUES (${job.key}, ${delivery.attempts})`).pipe(Effect.orDie)
    }),
    "hookgate-jobs-dlq": deadLetterHandler({ alertThreshold: 1 }),
    // Each delivery noted (its body and its count) before the consumer handles it.
    "hookgate-campaigns": (delivery) =>
      Effect.zipRight(
        Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql`INSERT INTO test_deliveries VALUES (${JSON.stringify(delivery.body)}, ${delivery.attempts})`).pipe(Effect.orDie),
        Cloudflare.campaignBatches(delivery)
      ),
    "hookgate-campaigns-dlq": deadLetterHandler({ alertThreshold: 1 })
  }
})
