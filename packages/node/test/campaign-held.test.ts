import { RetryPolicy } from "@hookgate/core"
import { CampaignInProcessQueue, Campaigns } from "@hookgate/core/campaigns"
import { MailerCircuit } from "@hookgate/core/mail"
import { MailerSteps, MemoryAlertStore, MemoryLedgers, RecordingAlerter, ScriptedMailer } from "@hookgate/testing"
import { Effect, Layer, Logger, LogLevel, Schedule, Stream } from "effect"
import { describe, expect, it } from "vitest"
import * as Gateway from "../src/Gateway.js"

/**
 * The gateway's campaigns while the mail account stays misconfigured through several
 * probes: held batches are acknowledged, never given up as dead letters (the queue gives
 * up after 4 deliveries); the watcher, polling every 50 ms, dispatches only when a probe
 * is due; after the outage every recipient gets one email.
 */
describe("gateway campaigns during a misconfigured mailer", () => {
  it("hold through six failed probes without dead letters, then finish", async () => {
    const base = Layer.mergeAll(
      MemoryLedgers.layer.pipe(Layer.provideMerge(MemoryAlertStore.layer)),
      // The revoked key answers the first batches and five probes more.
      ScriptedMailer.layer({ batch: true, script: Array.from({ length: 7 }, () => MailerSteps.misconfigured()) }),
      RecordingAlerter.layer(),
      RetryPolicy.layer({ inRequestBase: 0 }),
      MailerCircuit.layer({ probeEvery: Schedule.spaced("250 millis") })
    )
    const layer = Gateway.layerCampaignWatcher("50 millis").pipe(Layer.provideMerge(Gateway.layerCampaigns), Layer.provideMerge(base))
    const program = Effect.gen(function*() {
      const campaigns = yield* Campaigns
      const queue = yield* CampaignInProcessQueue
      const mailer = yield* ScriptedMailer
      yield* campaigns.create({
        id: "held",
        template: { from: "shop@example.com", subject: "Hi", text: "Hello {{email}}" },
        recipients: Stream.fromIterable(Array.from({ length: 250 }, (_, i) => `fan${i}@example.com`))
      })
      yield* campaigns.start("held")
      for (let i = 0; i < 200 && (yield* campaigns.status("held")).state !== "completed"; i++) yield* Effect.sleep("50 millis")
      expect(yield* campaigns.status("held")).toMatchObject({ state: "completed", sent: 250, failed: 0 })
      const delivered = yield* mailer.delivered
      expect(delivered).toHaveLength(250)
      expect(new Set(delivered.map((d) => d.email.to)).size).toBe(250)
      const stats = yield* queue.stats
      expect(stats.deadLettered).toBe(0)
      // Three open batches a dispatch: at each probe, not at every 50 ms tick of the watcher.
      expect(stats.deliveries).toBeLessThan(45)
      expect(yield* Effect.flatMap(MailerCircuit, (c) => c.status)).toEqual({ mailer: "ok" })
    })
    await Effect.runPromise(program.pipe(Effect.provide(layer), Effect.scoped, Logger.withMinimumLogLevel(LogLevel.None)))
  }, 20_000)
})
