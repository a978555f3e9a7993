import { expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { RetryPolicy } from "@hookgate/core"
import { campaignBatchMessage, CampaignQueue, Campaigns, CampaignStore } from "@hookgate/core/campaigns"
import { MailerCircuit } from "@hookgate/core/mail"
import { RecordingAlerter } from "../recording-alerter.js"
import { ScriptedMailer } from "../scripted-mailer.js"
import { recipients, TEMPLATE } from "./campaign-store-conformance.js"
import type { LedgerServices } from "./ledger-services.js"
import * as MailerSteps from "../MailerSteps.js"

const PROBE = 60_000
const calls = (batch: boolean) => (batch ? 1 : 4)

/**
 * Campaign batches behind the `MailerCircuit`, as orders are: a `Misconfigured` answer
 * opens it; while it is open no batch calls the mailer, nothing is leased and no attempt
 * is counted, and each delivery asks to come back at the next probe; the probe's accepted
 * send closes it and every recipient then gets one email. On the TestClock, deliveries
 * driven by hand (the queue is a stub), for every store.
 */
export const campaignCircuitCases = (makeLayer: () => Layer.Layer<LedgerServices, unknown>) => {
  // The revoked key answers every call until it is fixed: the batch call, or the
  // first recipients sent at once (the default per-recipient concurrency, 4).
  const layer = (batch: boolean) =>
    Campaigns.layer().pipe(
      Layer.provideMerge(Layer.mergeAll(
        makeLayer(),
        ScriptedMailer.layer({ batch, script: Array.from({ length: calls(batch) }, () => MailerSteps.misconfigured()) }),
        RecordingAlerter.layer(),
        RetryPolicy.layer({ inRequestBase: 0, maxAttempts: 3 }),
        MailerCircuit.layer({ probeEvery: Schedule.spaced(PROBE) }),
        Layer.succeed(CampaignQueue, { enqueue: () => Effect.void }),
        Logger.minimumLogLevel(LogLevel.None)
      ))
    )

  const held = (batch: boolean) =>
    Effect.gen(function*() {
      const campaigns = yield* Campaigns
      const store = yield* CampaignStore
      const mailer = yield* ScriptedMailer
      yield* campaigns.create({ id: "c1", template: TEMPLATE, recipients: Stream.fromIterable(recipients(250)) })
      yield* campaigns.start("c1")
      const deliver = (n: number) => campaigns.sendBatch(campaignBatchMessage("c1", n))

      // The first batch meets the revoked key: held, and the breaker opens.
      expect(yield* deliver(1)).toEqual(expect.objectContaining({ _tag: "Held", nextProbeAt: PROBE, sent: 0 }))
      // The rest are held without calling the mailer: the calls that met the revoked key were all.
      for (let round = 0; round < 5; round++) {
        for (const n of [1, 2, 3]) expect((yield* deliver(n))._tag).toBe("Held")
      }
      // (The scripted mailer lists a batch call once per email in it.)
      expect(yield* mailer.calls).toHaveLength(batch ? 100 : calls(batch))
      const decision = yield* campaigns.handle({ queue: "q", id: "m", body: campaignBatchMessage("c1", 2), attempts: 1 })
      // Delivered again at the probe.
      expect(decision._tag === "Retry" && Duration.toMillis(decision.delay)).toBe(PROBE)
      // Nothing counted: the held batch's rows were freed with no attempt, the others never leased.
      const leased = yield* store.reserve("c1", 1, { size: 100, token: "look", now: 1, until: 2 })
      if (leased._tag !== "Leased") return yield* Effect.dieMessage(`expected Leased, got ${leased._tag}`)
      expect(leased.members.map((m) => [m.attempts, m.uncertain])).toEqual(Array.from({ length: 100 }, () => [0, false]))
      yield* store.record("c1", 1, "look", leased.members.map((m) => ({ seq: m.seq, outcome: "retry", held: true })), 1)
      expect(yield* campaigns.status("c1")).toMatchObject({ state: "running", sent: 0, failed: 0, reserved: 100, remaining: 150 })
      const alerts = yield* Effect.flatMap(RecordingAlerter, (r) => r.attempts)
      expect(alerts.filter((a) => a.kind === "mailer_misconfigured")).toHaveLength(1)

      // The key is fixed: at the probe, the first delivery goes through and closes the breaker.
      yield* TestClock.adjust(PROBE)
      for (const n of [1, 2, 3]) expect((yield* deliver(n))._tag).toBe("Sent")
      expect(yield* campaigns.status("c1")).toMatchObject({ state: "completed", sent: 250, failed: 0 })
      const delivered = yield* mailer.delivered
      expect(delivered).toHaveLength(250)
      expect(new Set(delivered.map((d) => d.email.to)).size).toBe(250)
      expect(yield* Effect.flatMap(MailerCircuit, (c) => c.status)).toEqual({ mailer: "ok" })
    })

  it.effect("a misconfigured mailer holds campaign batches uncounted until a probe succeeds (batch sending)", () =>
    Effect.provide(held(true), layer(true)))

  it.effect("a misconfigured mailer holds campaign batches uncounted until a probe succeeds (one recipient at a time)", () =>
    Effect.provide(held(false), layer(false)))
}
