import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { RetryPolicy } from "@hookgate/core"
import { AlertStore } from "@hookgate/core/alerts"
import {
  CampaignInProcessQueue,
  Campaigns,
  CampaignTemplate
} from "@hookgate/core/campaigns"
import { campaignBatchKey, Mailer, type MailerShape } from "@hookgate/core/mail"
import { RecordingAlerter } from "@hookgate/testing"
import { Resend } from "@hookgate/mailer-resend"
import { ResendTestServer } from "@hookgate/mailer-resend/testing"
import { SqliteStore } from "@hookgate/store-sqlite"
import { Effect, Layer, Logger, LogLevel, Stream } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/**
 * The incident, reproduced: a campaign of 12,480 recipients in batches of 100
 * through a queue; Resend accepts batch 89, then its consumer stalls past the
 * queue's visibility timeout before it acknowledges, and the queue redelivers
 * the batch. Without a ledger the redelivered batch went out again (1,284
 * recipients got the campaign twice); here it must not.
 */
const RECIPIENTS = 12_480
// A key that fits is derived without a digest: synchronously.
const STALLED = Effect.runSync(campaignBatchKey("spring-sale", 89))

/** Resend's mailer, whose answer to batch 89 reaches the consumer only after a long stall (once). */
const stallingAfterAccept = (inner: MailerShape, stall: number): MailerShape => {
  let stalled = false
  return {
    ...inner,
    sendBatch: (emails, options) =>
      inner.sendBatch!(emails, options).pipe(
        Effect.tap(() => {
          if (options.idempotencyKey !== STALLED || stalled) return Effect.void
          stalled = true
          return Effect.sleep(stall)
        })
      )
  }
}

const template = new CampaignTemplate({
  from: "Shop <news@shop.example>",
  subject: "Spring sale, {{name}}",
  text: "Hello {{name}}, the spring sale starts today."
})

const layer = Layer.unwrapEffect(Effect.gen(function*() {
  const server = yield* ResendTestServer
  const resend = yield* Effect.provide(Resend.make({ ...server.mailerOptions, timeout: "10 seconds" }), FetchHttpClient.layer)
  const filename = join(mkdtempSync(join(tmpdir(), "hookgate-incident-")), "hookgate.db")
  return Campaigns.layerInProcess({ concurrency: 4, maxRetries: 10, visibilityTimeout: "3 seconds" }).pipe(
    Layer.provideMerge(Layer.mergeAll(
      SqliteStore.layer({ filename }),
      // Past the visibility timeout by a second; no ordinary batch comes near it.
      Layer.succeed(Mailer, stallingAfterAccept(resend, 4_000)),
      RecordingAlerter.layer(),
      RetryPolicy.layer({ backoffBase: "20 millis", inRequestBase: 0 }),
      Logger.minimumLogLevel(LogLevel.Error)
    ))
  )
})).pipe(Layer.provideMerge(ResendTestServer.layer()))

describe("the campaign incident, reproduced", () => {
  it.live("12,480 recipients, batch 89 accepted then its consumer times out before acking, redelivered: one email each", () =>
    Effect.gen(function*() {
      const campaigns = yield* Campaigns
      const queue = yield* CampaignInProcessQueue
      const server = yield* ResendTestServer
      yield* campaigns.create({
        id: "spring-sale",
        template,
        recipients: Stream.range(0, RECIPIENTS - 1).pipe(
          Stream.map((i) => ({ email: `customer${i}@example.com`, vars: { name: `Customer ${i}` } }))
        )
      })
      yield* campaigns.start("spring-sale")
      yield* queue.idle

      // Every recipient got exactly one email.
      const perRecipient = new Map<string, number>()
      for (const email of server.emails) for (const to of email.to) perRecipient.set(to, (perRecipient.get(to) ?? 0) + 1)
      expect(perRecipient.size).toBe(RECIPIENTS)
      expect([...perRecipient.values()].filter((n) => n !== 1)).toEqual([])
      expect(server.emails).toHaveLength(RECIPIENTS)

      // Batch 89 was accepted once, its consumer stalled past the timeout and the queue redelivered it.
      expect(server.requests.filter((r) => r.idempotencyKey === STALLED)).toMatchObject([{ status: 200, replayed: false }])
      expect(server.emails.filter((e) => e.idempotencyKey === STALLED)).toHaveLength(100)
      const stats = yield* queue.stats
      expect(stats.timedOut).toBe(1)
      expect(stats.deliveries).toBeGreaterThan(125)

      // The ledger adds up, and counts the 100 it stopped.
      const status = yield* campaigns.status("spring-sale")
      expect(status).toMatchObject({ state: "completed", total: RECIPIENTS, sent: RECIPIENTS, failed: 0, remaining: 0, reserved: 0 })
      expect(status.total).toBe(status.sent + status.failed + status.remaining + status.reserved)
      expect(status.duplicatesPrevented).toBe(100)
      const alerts = yield* Effect.flatMap(AlertStore, (store) => store.list({ limit: 10 }))
      expect(alerts.map((a) => a.kind)).toEqual(["duplicates_spike"])
    }).pipe(Effect.provide(layer)), 60_000)
})
