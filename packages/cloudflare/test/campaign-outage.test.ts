import { Log, LogLevel, Miniflare } from "miniflare"
import type { Readable } from "node:stream"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bundleWorker } from "./bundle.js"

/**
 * A long mail outage on Workers, with real Cloudflare Queues in Miniflare: the campaign
 * queue gives a message at most three deliveries (`max_retries` 2, then the dead-letter
 * queue), yet a campaign's batches held by the open `MailerCircuit` (a revoked key: every
 * send `Misconfigured`) come back for as long as the outage lasts, each as a fresh
 * message, and once the mailer works again every recipient gets one email, with no
 * pause, resume or anything else from an operator.
 */
const source = fileURLToPath(new URL("./queue-worker/worker.ts", import.meta.url))
const MAX_RETRIES = 2

let mf: Miniflare
beforeAll(async () => {
  mf = new Miniflare({
    modules: [{ type: "ESModule", path: "worker.mjs", contents: await bundleWorker(source) }],
    compatibilityDate: "2026-04-20",
    log: new Log(LogLevel.WARN),
    handleRuntimeStdio: (stdout: Readable, stderr: Readable) => {
      for (const stream of [stdout, stderr]) stream.resume()
    },
    d1Databases: { DB: "hookgate-campaign-outage-test" },
    queueProducers: { JOBS: "hookgate-jobs", CAMPAIGNS: "hookgate-campaigns" },
    queueConsumers: {
      "hookgate-campaigns": { maxBatchSize: 4, maxBatchTimeout: 0, maxRetries: MAX_RETRIES, deadLetterQueue: "hookgate-campaigns-dlq" },
      "hookgate-campaigns-dlq": { maxBatchTimeout: 0 }
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
const rows = async <A>(query: string) => ((await (await mf.getD1Database("DB")).prepare(query).all()).results as Array<A>)

/** Polls until `check` holds, for up to about thirty seconds. */
const eventually = async <A>(read: () => Promise<A>, check: (a: A) => boolean): Promise<A> => {
  for (let i = 0; i < 300; i++) {
    const value = await read()
    if (check(value)) return value
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`condition never held: ${JSON.stringify(await read())}`)
}

/** Deliveries of each batch message of `campaign` so far. */
const deliveriesPerBatch = async (campaign: string) => {
  const delivered = await rows<{ body: string; attempts: number }>("SELECT body, attempts FROM test_deliveries")
  const perBatch = new Map<number, Array<number>>()
  for (const d of delivered) {
    const body = JSON.parse(d.body) as { campaignId: string; batch: number }
    if (body.campaignId === campaign) perBatch.set(body.batch, [...(perBatch.get(body.batch) ?? []), d.attempts])
  }
  return perBatch
}

describe("a mail outage longer than the campaign queue's retry limit", () => {
  it("held batches come back until the mailer works again: every recipient gets one email, nothing dead-lettered, no operator", async () => {
    expect((await post("/test/outage", { on: true })).status).toBe(200)
    const started = await post("/test/campaigns", { id: "outage", count: 250 })
    expect(started).toMatchObject({ status: 200, body: { state: "running", total: 250 } })
    // Every batch is delivered more times than the queue would ever deliver one message.
    const held = await eventually(
      () => deliveriesPerBatch("outage"),
      (perBatch) => perBatch.size === 3 && [...perBatch.values()].every((attempts) => attempts.length > MAX_RETRIES + 2)
    )
    // Each delivery was a message's first: the queue's retry count was never spent on the outage.
    expect([...held.values()].flat().every((attempts) => attempts === 1)).toBe(true)
    expect(await rows("SELECT * FROM test_emails WHERE idempotency_key LIKE 'hookgate/campaign/outage/%'")).toEqual([])
    expect(await rows("SELECT * FROM hookgate_dead_letters")).toEqual([])
    expect(await get("/test/campaigns/outage")).toMatchObject({ state: "running", sent: 0, failed: 0 })

    // The account is fixed: the next probe goes through and the campaign finishes on its own.
    expect((await post("/test/outage", { on: false })).status).toBe(200)
    const done = await eventually(() => get("/test/campaigns/outage"), (s) => s["state"] === "completed")
    expect(done).toMatchObject({ total: 250, sent: 250, failed: 0, remaining: 0, reserved: 0 })
    const emails = await rows<{ recipient: string; n: number }>(
      "SELECT recipient, COUNT(*) AS n FROM test_emails WHERE idempotency_key LIKE 'hookgate/campaign/outage/%' GROUP BY recipient"
    )
    expect(emails).toHaveLength(250)
    expect(emails.filter((e) => e.n !== 1)).toEqual([])
    expect(await rows("SELECT * FROM hookgate_dead_letters")).toEqual([])
    expect(await rows("SELECT kind FROM hookgate_alerts WHERE kind IN ('dead_letter', 'capped', 'failed')")).toEqual([])
  }, 90_000)
})
