import { RetryPolicy } from "@hookgate/core"
import { AlertStore } from "@hookgate/core/alerts"
import { CampaignInProcessQueue, CampaignOptions, Campaigns, CampaignTemplate } from "@hookgate/core/campaigns"
import { MemoryAlertStore, MemoryLedgers, RecordingAlerter } from "@hookgate/testing"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Logger, LogLevel, Stream } from "effect"
import { layer as smtpLayer } from "../src/Smtp.js"
import { type SmtpTestServerShape, startSmtpTestServer } from "../src/testing/index.js"
import { selfSignedCertificate } from "./support.js"

const TEMPLATE = new CampaignTemplate({ from: "Shop <news@shop.example>", subject: "Hello {{name}}", text: "Dear {{name}}." })
const COUNT = 150
const UNKNOWN = "r17@example.com"

let server: SmtpTestServerShape
let ca: string
beforeAll(async () => {
  const cert = await selfSignedCertificate()
  ca = cert.cert
  server = await startSmtpTestServer({ security: "starttls", ...cert, rejectRecipients: [UNKNOWN] })
})
afterAll(() => server.close())

/** Campaigns on the in-memory ledgers and queue, sending over a pool of 3 STARTTLS connections. */
const environment = () => Campaigns.layerInProcess({ concurrency: 2, maxRetries: 10 }).pipe(
  Layer.provideMerge(Layer.mergeAll(
    MemoryLedgers.layer.pipe(Layer.provideMerge(MemoryAlertStore.layer)),
    smtpLayer({ ...server.mailerOptions, tls: { ca }, poolSize: 3, timeout: "10 seconds" }),
    RecordingAlerter.layer(),
    RetryPolicy.layer({ inRequestBase: 0, backoffBase: "20 millis" }),
    CampaignOptions.layer({ perRecipientConcurrency: 8 }),
    Logger.minimumLogLevel(LogLevel.Error)
  ))
)

describe("a campaign through the SMTP pool", () => {
  it.live("every recipient gets one message over at most poolSize connections; the unknown mailbox fails alone", () =>
    Effect.gen(function*() {
      const campaigns = yield* Campaigns
      const recipients = Array.from({ length: COUNT }, (_, i) => ({ email: `r${i}@example.com`, vars: { name: `Reader ${i}` } }))
      yield* campaigns.create({ id: "c1", template: TEMPLATE, recipients: Stream.fromIterable(recipients) })
      yield* campaigns.start("c1")
      yield* Effect.flatMap(CampaignInProcessQueue, (queue) => queue.idle)

      expect(yield* campaigns.status("c1")).toMatchObject({ state: "completed", total: COUNT, sent: COUNT - 1, failed: 1 })
      const delivered = server.messages.filter((m) => m.reply === 250)
      const perRecipient = new Map<string, number>()
      for (const m of delivered) perRecipient.set(m.to[0]!, (perRecipient.get(m.to[0]!) ?? 0) + 1)
      expect(perRecipient.size).toBe(COUNT - 1)
      expect([...perRecipient.values()].every((n) => n === 1)).toBe(true)
      expect(perRecipient.has(UNKNOWN)).toBe(false)
      expect(delivered.find((m) => m.to[0] === "r7@example.com")!.raw).toContain("Dear Reader 7.")
      // The pool: many messages, few connections.
      expect(server.connections).toBeLessThanOrEqual(3)
      expect(new Set(delivered.map((m) => m.connection)).size).toBeLessThanOrEqual(3)

      const alerts = yield* Effect.flatMap(AlertStore, (s) => s.list({ limit: 10 }))
      expect(alerts.map((a) => a.kind)).toEqual(["failed"])
      expect(alerts[0]!.message).toContain("550")
    }).pipe(Effect.provide(environment())), 60_000)
})
