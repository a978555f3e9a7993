import { Log, LogLevel, Miniflare } from "miniflare"
import type { Readable } from "node:stream"
import { fileURLToPath } from "node:url"
import { stripVTControlCharacters } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bundleWorker } from "./bundle.js"

/**
 * Real Cloudflare Queues in Miniflare: producer and consumer bindings, retries,
 * and a dead-letter queue, consumed by `makeWorker({ queues })`.
 */
const source = fileURLToPath(new URL("./queue-worker/worker.ts", import.meta.url))

/** Miniflare's log, kept: its queue broker reports each batch as `QUEUE <name> <acked>/<total>`. */
class CapturingLog extends Log {
  readonly lines: Array<string> = []
  protected override log(message: string): void {
    this.lines.push(stripVTControlCharacters(message))
  }
}
const log = new CapturingLog(LogLevel.INFO)
/** Messages of `queue` the broker saw acknowledged, and delivered, so far. */
const queueCounts = (queue: string) =>
  log.lines.reduce((sum, line) => {
    const match = new RegExp(`QUEUE ${queue} (\\d+)/(\\d+)`).exec(line)
    return match ? { acked: sum.acked + Number(match[1]), delivered: sum.delivered + Number(match[2]) } : sum
  }, { acked: 0, delivered: 0 })

let mf: Miniflare
const workerOutput: Array<string> = []
beforeAll(async () => {
  mf = new Miniflare({
    modules: [{ type: "ESModule", path: "worker.mjs", contents: await bundleWorker(source) }],
    compatibilityDate: "2026-04-20",
    log,
    // The Worker's own log lines (JSON), kept out of the test output.
    handleRuntimeStdio: (stdout: Readable, stderr: Readable) => {
      for (const stream of [stdout, stderr]) stream.on("data", (chunk: Buffer) => workerOutput.push(chunk.toString("utf8")))
    },
    d1Databases: { DB: "hookgate-queues-test" },
    queueProducers: { JOBS: "hookgate-jobs", CAMPAIGNS: "hookgate-campaigns" },
    queueConsumers: {
      "hookgate-jobs": { maxBatchSize: 5, maxBatchTimeout: 0, maxRetries: 2, deadLetterQueue: "hookgate-jobs-dlq" },
      "hookgate-jobs-dlq": { maxBatchTimeout: 0 },
      "hookgate-campaigns": { maxBatchSize: 4, maxBatchTimeout: 0, maxRetries: 10 }
    }
  })
  await mf.ready
}, 60_000)
afterAll(() => mf?.dispose())

const post = async (path: string, body: unknown) => {
  const response = await mf.dispatchFetch(`http://worker${path}`, { method: "POST", body: JSON.stringify(body) })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}
const get = async (path: string) => (await (await mf.dispatchFetch(`http://worker${path}`)).json()) as Record<string, unknown>
const db = () => mf.getD1Database("DB")
const rows = async <A>(query: string, ...params: Array<unknown>) => ((await (await db()).prepare(query).bind(...params).all()).results as Array<A>)

/** Polls until `check` holds, for up to about fifteen seconds. */
const eventually = async <A>(read: () => Promise<A>, check: (a: A) => boolean): Promise<A> => {
  for (let i = 0; i < 300; i++) {
    const value = await read()
    if (check(value)) return value
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`condition never held: ${JSON.stringify(await read())}`)
}
const settle = () => new Promise((resolve) => setTimeout(resolve, 300))

describe("Cloudflare Queues in Miniflare", () => {
  it("the same message sent twice: one side effect, two acks", async () => {
    expect((await post("/test/jobs", { key: "order-8812-charge" })).status).toBe(202)
    expect((await post("/test/jobs", { key: "order-8812-charge" })).status).toBe(202)
    // Both messages acknowledged (a copy that arrived mid-run was retried, then acknowledged).
    await eventually(async () => queueCounts("hookgate-jobs"), (c) => c.acked === 2)
    await settle()
    expect(queueCounts("hookgate-jobs").acked).toBe(2)
    const [ledger] = await rows<{ runs: number; duplicates: number; status: string }>(
      "SELECT status, runs, duplicates FROM hookgate_messages WHERE message_key = ?",
      "order-8812-charge"
    )
    expect(ledger).toMatchObject({ status: "completed", runs: 1 })
    expect(ledger!.duplicates).toBeGreaterThanOrEqual(1)
    expect(await rows("SELECT job_key, attempts FROM test_effects WHERE job_key = ?", "order-8812-charge")).toEqual([
      { job_key: "order-8812-charge", attempts: 1 }
    ])
    // Both messages were acknowledged: neither came back, and none reached the dead letters.
    expect(await rows("SELECT * FROM hookgate_dead_letters")).toEqual([])
  })

  it("a failing effect is retried by the queue and completed once", async () => {
    await post("/test/jobs", { key: "order-1-charge", fail: "once" })
    const effects = await eventually(
      () => rows<{ attempts: number }>("SELECT attempts FROM test_effects WHERE job_key = ?", "order-1-charge"),
      (r) => r.length > 0
    )
    expect(effects).toEqual([{ attempts: 2 }])
    await settle()
    expect(await rows("SELECT status, runs, attempts, last_error FROM hookgate_messages WHERE message_key = ?", "order-1-charge")).toEqual([
      // One failed run recorded; completing it cleared the error.
      { status: "completed", runs: 2, attempts: 1, last_error: null }
    ])
    expect(await rows("SELECT job_key FROM test_effects WHERE job_key = ?", "order-1-charge")).toHaveLength(1)
  })

  it("exhausted retries: the message lands in the dead-letter store and the owner is alerted", async () => {
    await post("/test/jobs", { key: "order-2-charge", fail: "always" })
    const letters = await eventually(
      () => rows<{ queue: string; body: string; attempts: number }>("SELECT queue, body, attempts FROM hookgate_dead_letters"),
      (r) => r.length > 0
    )
    expect(letters).toHaveLength(1)
    expect(letters[0]!.queue).toBe("hookgate-jobs-dlq")
    expect(JSON.parse(letters[0]!.body)).toEqual({ key: "order-2-charge", fail: "always" })
    // Three deliveries on the job queue (max_retries 2), each a failed run recorded on the ledger.
    expect(await rows("SELECT status, runs, attempts FROM hookgate_messages WHERE message_key = ?", "order-2-charge")).toEqual([
      { status: "pending", runs: 3, attempts: 3 }
    ])
    const alerts = await eventually(() => rows<{ kind: string }>("SELECT kind FROM hookgate_alerts"), (r) => r.length > 0)
    expect(alerts).toEqual([{ kind: "dead_letter" }])
    expect(await rows("SELECT * FROM test_effects WHERE job_key = ?", "order-2-charge")).toEqual([])
  })

  it("a campaign's batches travel through the queue: one email per recipient, even with every batch delivered twice", async () => {
    const started = await post("/test/campaigns", { id: "spring", count: 1_050 })
    expect(started).toMatchObject({ status: 200, body: { state: "running", total: 1_050 } })
    // Every batch message sent a second time, while the first ones are being consumed.
    expect((await post("/test/campaigns/spring/redeliver", {})).status).toBe(202)
    const done = await eventually(() => get("/test/campaigns/spring"), (s) => s["state"] === "completed" && s["duplicatesPrevented"] === 1_050)
    expect(done).toMatchObject({ total: 1_050, sent: 1_050, failed: 0, remaining: 0, reserved: 0, duplicatesPrevented: 1_050 })
    const emails = await rows<{ recipient: string; n: number }>(
      "SELECT recipient, COUNT(*) AS n FROM test_emails WHERE idempotency_key LIKE 'hookgate/campaign/spring/%' GROUP BY recipient"
    )
    expect(emails).toHaveLength(1_050)
    expect(emails.filter((e) => e.n !== 1)).toEqual([])
    const keys = await rows<{ k: string }>("SELECT DISTINCT idempotency_key AS k FROM test_emails WHERE idempotency_key LIKE 'hookgate/campaign/spring/%'")
    expect(keys).toHaveLength(11)
  })
})
