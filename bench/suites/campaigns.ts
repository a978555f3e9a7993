import { RetryPolicy } from "@hookgate/core"
import {
  campaignBatchMessage,
  CampaignQueue,
  Campaigns,
  CampaignStore,
  CampaignTemplate
} from "@hookgate/core/campaigns"
import { Mailer, SendReceipt } from "@hookgate/core/mail"
import { RecordingAlerter } from "@hookgate/testing"
import { SqlStore } from "@hookgate/store-sql"
import { SqliteStore } from "@hookgate/store-sqlite"
import Database from "better-sqlite3"
import { Duration, Effect, Layer, Logger, LogLevel, ManagedRuntime, Stream } from "effect"
import { execFile } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { type BenchSuite, countingTracer, figure } from "../lib.js"

/**
 * Issue 7's figures: statements per 100-recipient campaign batch (reserve to
 * sent), the ledger's time per batch beside the same work one row at a time
 * with better-sqlite3 alone, and the peak RSS of whole campaigns of 100,000
 * and 1,000,000 recipients, each in a child process of its own.
 */

const BATCHES = 200
/** Batches run before timing starts, so the figures are of warm code (JIT, statement caches). */
const WARMUP = 100
/** Each per-batch figure is the best of this many timed rounds of `BATCHES` (both sides alike). */
const ROUNDS = 3
const TOTAL = WARMUP + ROUNDS * BATCHES

/** Runs `batch(n)` for the warm-up, then times `ROUNDS` rounds of `BATCHES`; answers the best ms per batch. */
const bestOfRounds = async (batch: (n: number) => Promise<void> | void) => {
  for (let n = 1; n <= WARMUP; n++) await batch(n)
  let best = Infinity
  for (let round = 0; round < ROUNDS; round++) {
    const first = WARMUP + round * BATCHES + 1
    const start = performance.now()
    for (let n = first; n < first + BATCHES; n++) await batch(n)
    best = Math.min(best, (performance.now() - start) / BATCHES)
  }
  return best
}
const SIZE = 100

const receipt = new SendReceipt({ mailer: "instant", messageId: "m", acceptedAt: 0 })
// Accepts at once, through the batch endpoint (as Resend's), so the figure is the ledger's.
const instantMailer = Layer.succeed(Mailer, {
  name: "instant",
  honoursIdempotencyKeys: true,
  callTimeout: Duration.seconds(10),
  send: () => Effect.succeed(receipt),
  sendBatch: (emails) => Effect.succeed(emails.map(() => receipt))
})

const template = new CampaignTemplate({ from: "news@shop.example", subject: "Hello {{name}}", text: "Dear {{name}}, the sale starts today." })
const recipients = (count: number) =>
  Stream.range(0, count - 1).pipe(Stream.map((i) => ({ email: `reader${i}@example.com`, vars: { name: `Reader ${i}` } })))

const tempDb = (name: string) => join(mkdtempSync(join(tmpdir(), "hookgate-bench-")), name)


/**
 * hookgate on a SQLite file, `BATCHES` batches one after the other, each on a
 * campaign of its own database: the ledger work alone (the store's `reserve`
 * and `record` of 100 recipients, through @effect/sql), and whole batch
 * deliveries (reserve, render, send through a mailer that accepts at once,
 * record), whose statements are counted. Batches are delivered by hand: no
 * queue consumer runs.
 */
export const hookgatePerBatch = async () => {
  const { count, layer: tracer } = countingTracer()
  const runtimeOn = (name: string, traced: boolean) =>
    ManagedRuntime.make(
      Campaigns.layer().pipe(
        Layer.provideMerge(Layer.mergeAll(
          SqliteStore.layer({ filename: tempDb(name) }),
          instantMailer,
          RecordingAlerter.layer(),
          RetryPolicy.layer(),
          Layer.succeed(CampaignQueue, { enqueue: () => Effect.void }),
          Logger.minimumLogLevel(LogLevel.Error)
        )),
        Layer.merge(traced ? tracer : Layer.empty)
      )
    )
  const prepare = async (runtime: ReturnType<typeof runtimeOn>) => {
    const campaigns = await runtime.runPromise(Campaigns)
    await runtime.runPromise(campaigns.create({ id: "bench", template, recipients: recipients(TOTAL * SIZE) }))
    await runtime.runPromise(campaigns.start("bench"))
    return campaigns
  }

  // The ledger work: reserve 100 (one statement), record them sent (one statement).
  // Effect's default tracer, as in production (the counting one below wraps it).
  const ledgerRuntime = runtimeOn("ledger.db", false)
  await prepare(ledgerRuntime)
  const store = await ledgerRuntime.runPromise(CampaignStore)
  const ledgerBatch = (n: number) =>
    Effect.gen(function*() {
      const token = crypto.randomUUID()
      const now = Date.now()
      const reserved = yield* store.reserve("bench", n, { size: SIZE, token, now, until: now + 300_000 })
      if (reserved._tag !== "Leased") return yield* Effect.dieMessage(`batch ${n}: ${reserved._tag}`)
      const written = yield* store.record("bench", n, token, reserved.members.map((m) => ({ seq: m.seq, outcome: "sent" as const, messageId: "m" })), now)
      if (written !== SIZE) return yield* Effect.dieMessage(`batch ${n}: recorded ${written}`)
    })
  const ledgerMs = await bestOfRounds((n) => ledgerRuntime.runPromise(ledgerBatch(n)))
  await ledgerRuntime.dispose()

  // Whole deliveries; the warm-up also fills the template cache (one read per campaign and process).
  const batchRuntime = runtimeOn("batches.db", true)
  const campaigns = await prepare(batchRuntime)
  // Statements are counted over the timed batches (the warm-up read the template once).
  let counted = { statements: 0, batches: 0 }
  const batchMs = await bestOfRounds(async (n) => {
    const before = count()
    const outcome = await batchRuntime.runPromise(campaigns.sendBatch(campaignBatchMessage("bench", n)))
    if (outcome._tag !== "Sent" || outcome.sent !== SIZE) throw new Error(`batch ${n}: ${outcome._tag}`)
    if (n > WARMUP) counted = { statements: counted.statements + count() - before, batches: counted.batches + 1 }
  })
  const statements = counted.statements / counted.batches
  await batchRuntime.dispose()
  return { ledgerMs, batchMs, statements }
}

/**
 * The same ledger work one row at a time, with better-sqlite3 alone, on the same
 * schema and file settings (WAL): select the next 100 queued, reserve each row,
 * then mark each row sent under the token.
 */
export const rowAtATimePerBatch = async () => {
  const db = new Database(tempDb("rows.db"))
  db.pragma("journal_mode = WAL")
  for (const statement of SqlStore.migrations.flatMap((m) => m.statements)) db.exec(statement)
  db.prepare(`INSERT INTO hookgate_campaigns (campaign_id, template, state, total, batch_size, batches, duplicates_prevented, created_at, updated_at)
VALUES ('bench', '{}', 'running', 0, 100, 0, 0, 0, 0)`).run()
  const insert = db.prepare(`INSERT INTO hookgate_campaign_recipients (campaign_id, seq, email, vars, status, attempts, uncertain, solo)
VALUES ('bench', ?, ?, ?, 'queued', 0, 0, 0)`)
  db.transaction(() => {
    for (let i = 0; i < TOTAL * SIZE; i++) insert.run(i, `reader${i}@example.com`, JSON.stringify({ name: `Reader ${i}` }))
  })()
  const next = db.prepare(`SELECT seq, email, vars FROM hookgate_campaign_recipients
WHERE campaign_id = 'bench' AND batch_no IS NULL ORDER BY seq LIMIT ${SIZE}`)
  const reserve = db.prepare(`UPDATE hookgate_campaign_recipients SET status = 'reserved', batch_no = ?, lease_token = ?, lease_expires_at = ?
WHERE campaign_id = 'bench' AND seq = ? AND status = 'queued'`)
  const sent = db.prepare(`UPDATE hookgate_campaign_recipients SET status = 'sent', message_id = ?, sent_at = ?, lease_token = NULL, lease_expires_at = NULL
WHERE campaign_id = 'bench' AND seq = ? AND lease_token = ?`)
  const batch = (n: number) => {
    const token = crypto.randomUUID()
    const now = Date.now()
    const rows = next.all() as Array<{ seq: number }>
    for (const row of rows) reserve.run(n, token, now + 300_000, row.seq)
    for (const row of rows) sent.run("m", now, row.seq, token)
  }
  const ms = await bestOfRounds(batch)
  db.close()
  return ms
}

/**
 * hookgate's two statements (from store-sql, compiled for SQLite) with
 * better-sqlite3 alone, on the same schema: the SQL's own cost, without Effect,
 * @effect/sql or decoding. The reference figure (0.65 ms) is this one.
 */
export const batchedSqlPerBatch = async () => {
  const db = new Database(tempDb("batched.db"))
  db.pragma("journal_mode = WAL")
  for (const statement of SqlStore.migrations.flatMap((m) => m.statements)) db.exec(statement)
  db.prepare(`INSERT INTO hookgate_campaigns (campaign_id, template, state, total, batch_size, batches, duplicates_prevented, created_at, updated_at)
VALUES ('bench', '{}', 'running', 0, 100, 0, 0, 0, 0)`).run()
  const insert = db.prepare(`INSERT INTO hookgate_campaign_recipients (campaign_id, seq, email, vars, status, attempts, uncertain, solo)
VALUES ('bench', ?, ?, ?, 'queued', 0, 0, 0)`)
  db.transaction(() => {
    for (let i = 0; i < TOTAL * SIZE; i++) insert.run(i, `reader${i}@example.com`, JSON.stringify({ name: `Reader ${i}` }))
  })()
  const reserve = db.prepare(`UPDATE hookgate_campaign_recipients SET
  status = 'reserved', batch_no = @batch, lease_token = @token, lease_expires_at = @until,
  uncertain = CASE WHEN lease_token IS NULL THEN uncertain ELSE 1 END
WHERE campaign_id = 'bench'
  AND EXISTS (SELECT 1 FROM hookgate_campaigns WHERE campaign_id = 'bench' AND state = 'running')
  AND seq IN (
    SELECT seq FROM hookgate_campaign_recipients
    WHERE campaign_id = 'bench' AND batch_no = @batch AND status = 'reserved' AND (lease_token IS NULL OR lease_expires_at <= @now)
    UNION ALL
    SELECT seq FROM (SELECT seq FROM hookgate_campaign_recipients WHERE campaign_id = 'bench' AND batch_no IS NULL ORDER BY seq LIMIT ${SIZE}) AS next_rows
    WHERE NOT EXISTS (SELECT 1 FROM hookgate_campaign_recipients WHERE campaign_id = 'bench' AND batch_no = @batch)
  )
RETURNING seq, email, vars, attempts, uncertain, solo`)
  const record = db.prepare(`WITH r AS MATERIALIZED (
  SELECT json_extract(value, '$.s') AS s, json_extract(value, '$.m') AS m FROM json_each(@json)
)
UPDATE hookgate_campaign_recipients SET status = 'sent', message_id = r.m, last_error = NULL, sent_at = @now,
  lease_token = NULL, lease_expires_at = NULL
FROM r WHERE hookgate_campaign_recipients.campaign_id = 'bench' AND hookgate_campaign_recipients.seq = r.s
  AND +hookgate_campaign_recipients.batch_no = @batch AND hookgate_campaign_recipients.lease_token = @token
  AND +hookgate_campaign_recipients.status = 'reserved'
RETURNING hookgate_campaign_recipients.seq`)
  const ms = await bestOfRounds((batch) => {
    const token = crypto.randomUUID()
    const now = Date.now()
    const rows = reserve.all({ batch, token, now, until: now + 300_000 }) as Array<{ seq: number }>
    record.all({ json: JSON.stringify(rows.map((row) => ({ s: row.seq, m: "m" }))), now, batch, token })
  })
  db.close()
  return ms
}

const child = fileURLToPath(new URL("./campaign-rss-child.js", import.meta.url))

/**
 * A whole campaign of `count` recipients in a child process: its peak RSS, its
 * live heap after a full GC at the end, and timings. The child's old space is
 * capped (the same cap for every size): V8 otherwise lets garbage pile up in
 * proportion to the run's length, which measures its heap-growth heuristics,
 * not what the campaign keeps. A campaign that kept memory per recipient would
 * grow toward the cap, or die at it.
 */
const HEAP_CAP_MB = 128
const campaignInChild = async (count: number) => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [`--max-old-space-size=${HEAP_CAP_MB}`, "--expose-gc", child, String(count), tempDb("rss.db")],
    { maxBuffer: 1024 * 1024 }
  )
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as {
    peakRssBytes: number
    liveHeapBytes: number
    createMs: number
    sendMs: number
  }
}

export const campaignsSuite: BenchSuite = {
  name: "campaigns",
  run: async () => {
    const hookgate = await hookgatePerBatch()
    const rowAtATime = await rowAtATimePerBatch()
    const batchedSql = await batchedSqlPerBatch()
    const small = await campaignInChild(100_000)
    const large = await campaignInChild(1_000_000)
    const timing = (run: typeof small) => `created in ${(run.createMs / 1000).toFixed(1)} s, sent in ${(run.sendMs / 1000).toFixed(1)} s`
    return [
      figure("ledgerStatementsPerBatch", "statements per 100-recipient batch, reserve to sent (hookgate)", hookgate.statements, "statements"),
      figure("ledgerMsPerBatch", `ms per 100-recipient batch, hookgate's ledger (reserve + record) on SQLite, best of ${ROUNDS} x ${BATCHES}`, hookgate.ledgerMs, "ms"),
      figure("rowAtATimeMsPerBatch", `ms per batch, the same ledger work one row at a time (better-sqlite3 alone), best of ${ROUNDS} x ${BATCHES}`, rowAtATime, "ms"),
      figure("batchedSqlMsPerBatch", "ms per batch, hookgate's two statements with better-sqlite3 alone (the SQL's own cost)", batchedSql, "ms"),
      figure("campaignBatchMsPerBatch", "ms per batch delivered: ledger, render, instant send, record (hookgate)", hookgate.batchMs, "ms"),
      figure("peakRssBytes100k", `peak RSS, whole campaign of 100,000 (${timing(small)}; heap cap ${HEAP_CAP_MB} MB)`, small.peakRssBytes, "bytes"),
      figure("peakRssBytes1m", `peak RSS, whole campaign of 1,000,000 (${timing(large)}; heap cap ${HEAP_CAP_MB} MB)`, large.peakRssBytes, "bytes"),
      figure("liveHeapBytes100k", "live heap after a full GC at the end, 100,000", small.liveHeapBytes, "bytes"),
      figure("liveHeapBytes1m", "live heap after a full GC at the end, 1,000,000", large.liveHeapBytes, "bytes")
    ]
  },
  ratios: [
    ["ledgerMsPerBatch / rowAtATimeMsPerBatch (target at most 0.25)", "ledgerMsPerBatch", "rowAtATimeMsPerBatch"],
    ["campaignBatchMsPerBatch / rowAtATimeMsPerBatch", "campaignBatchMsPerBatch", "rowAtATimeMsPerBatch"],
    ["peakRssBytes1m / peakRssBytes100k (target at most 1.2)", "peakRssBytes1m", "peakRssBytes100k"]
  ]
}
