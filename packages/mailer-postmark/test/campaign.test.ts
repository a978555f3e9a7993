import { FetchHttpClient } from "@effect/platform"
import { RetryPolicy } from "@hookgate/core"
import { AlertStore } from "@hookgate/core/alerts"
import { CampaignInProcessQueue, CampaignOptions, Campaigns, CampaignTemplate } from "@hookgate/core/campaigns"
import { MemoryAlertStore, MemoryLedgers, RecordingAlerter } from "@hookgate/testing"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Logger, LogLevel, Stream } from "effect"
import { layer as postmarkLayer } from "../src/Postmark.js"
import { type PostmarkTestServerShape, startPostmarkTestServer } from "../src/testing/index.js"

const TEMPLATE = new CampaignTemplate({ from: "Shop <news@shop.example>", subject: "Hello {{name}}", text: "Dear {{name}}." })
const COUNT = 250
const INACTIVE = ["r17@example.com", "r142@example.com"]

let server: PostmarkTestServerShape
beforeAll(async () => {
  server = await startPostmarkTestServer({ inactiveRecipients: INACTIVE })
})
afterAll(() => server.close())

/** Campaigns on the in-memory ledgers and queue, sending through Postmark's batch endpoint. */
const environment = () => Campaigns.layerInProcess({ concurrency: 2, maxRetries: 10 }).pipe(
  Layer.provideMerge(Layer.mergeAll(
    MemoryLedgers.layer.pipe(Layer.provideMerge(MemoryAlertStore.layer)),
    postmarkLayer(server.mailerOptions).pipe(Layer.provide(FetchHttpClient.layer)),
    RecordingAlerter.layer(),
    RetryPolicy.layer({ inRequestBase: 0, backoffBase: "20 millis" }),
    CampaignOptions.layer({ batchSize: 100 }),
    Logger.minimumLogLevel(LogLevel.Error)
  ))
)

describe("a campaign through Postmark's batch endpoint", () => {
  it.live("one batch request per 100; inactive recipients fail alone and nobody gets two emails", () =>
    Effect.gen(function*() {
      const campaigns = yield* Campaigns
      const recipients = Array.from({ length: COUNT }, (_, i) => ({ email: `r${i}@example.com`, vars: { name: `Reader ${i}` } }))
      yield* campaigns.create({ id: "c1", template: TEMPLATE, recipients: Stream.fromIterable(recipients) })
      yield* campaigns.start("c1")
      yield* Effect.flatMap(CampaignInProcessQueue, (queue) => queue.idle)

      expect(yield* campaigns.status("c1")).toMatchObject({ state: "completed", total: COUNT, sent: COUNT - 2, failed: 2 })
      // Three batches; the two refused recipients were each tried once more, alone, and refused again.
      const batches = server.requests.filter((r) => r.path === "/email/batch")
      expect(batches.map((r) => r.errorCodes.length).sort()).toEqual([100, 100, 50].sort())
      expect(server.requests.filter((r) => r.path === "/email").map((r) => r.errorCodes)).toEqual([[406], [406]])
      // Postmark has no idempotency key: the batch's accepted messages were not sent again.
      const perRecipient = new Map<string, number>()
      for (const e of server.emails) perRecipient.set(e.to, (perRecipient.get(e.to) ?? 0) + 1)
      expect(perRecipient.size).toBe(COUNT - 2)
      expect([...perRecipient.values()].every((n) => n === 1)).toBe(true)
      expect(server.emails.find((e) => e.to === "r7@example.com")).toMatchObject({ subject: "Hello Reader 7", textBody: "Dear Reader 7." })

      const alerts = yield* Effect.flatMap(AlertStore, (s) => s.list({ limit: 10 }))
      // One `failed` alert per batch with a refused recipient (batches 1 and 2).
      expect(alerts.map((a) => a.kind)).toEqual(["failed", "failed"])
      expect(alerts.every((a) => a.message.includes("406"))).toBe(true)
    }).pipe(Effect.provide(environment())), 60_000)
})
