import { describe, expect, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { RetryPolicy } from "@hookgate/core"
import { AlertStore } from "@hookgate/core/alerts"
import { campaignBatchMessage, CampaignInProcessQueue, CampaignOptions, Campaigns, CampaignStore, renderCampaignEmail } from "@hookgate/core/campaigns"
import { campaignBatchKey, campaignRecipientKey, Mailer } from "@hookgate/core/mail"
import { RecordingAlerter } from "../recording-alerter.js"
import { ScriptedMailer, type ScriptedMailerOptions } from "../scripted-mailer.js"
import { recipients, TEMPLATE } from "./campaign-store-conformance.js"
import type { LedgerServices } from "./ledger-services.js"
import { realPause } from "../fixtures.js"
import { campaignCircuitCases } from "./campaign-circuit-behaviours.js"
import { campaignSealedCases } from "./campaign-sealed-behaviours.js"
import * as MailerSteps from "../MailerSteps.js"


/** Polls (in real time) until `check` holds, for up to about ten seconds. */
const until = <A, E, R>(effect: Effect.Effect<A, E, R>, check: (a: A) => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 2_000; i++) {
      const value = yield* effect
      if (check(value)) return value
      yield* realPause(5)
    }
    return yield* Effect.dieMessage("condition never held")
  })

export interface CampaignScenario {
  readonly mailer?: ScriptedMailerOptions
  readonly maxAttempts?: number
  readonly leaseFor?: Duration.DurationInput
  readonly perRecipientConcurrency?: number
  readonly queueConcurrency?: number
}

type Services = LedgerServices | Campaigns | CampaignInProcessQueue | ScriptedMailer | Mailer | RecordingAlerter | RetryPolicy

/**
 * Campaigns end to end on a store: the in-process queue (Cloudflare Queues'
 * semantics), the scripted mailer (its batch endpoint honours keys), real time.
 * Every scenario checks the one thing that matters: each recipient got the email once.
 */
export const campaignBehaviours = (name: string, makeLayer: () => Layer.Layer<LedgerServices, unknown>) =>
  describe(`campaign behaviours: ${name}`, () => {
    const scenario = (title: string, options: CampaignScenario, body: Effect.Effect<void, unknown, Services>, timeout = 30_000) =>
      it.live(title, () =>
        Effect.provide(
          body,
          Campaigns.layerInProcess({ concurrency: options.queueConcurrency ?? 4, maxRetries: 10 }).pipe(
            Layer.provideMerge(Layer.mergeAll(
              makeLayer(),
              ScriptedMailer.layer({ batch: true, ...options.mailer }),
              RecordingAlerter.layer(),
              RetryPolicy.layer({
                inRequestBase: 0,
                backoffBase: "20 millis",
                leaseFor: options.leaseFor ?? "5 seconds",
                ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts })
              }),
              CampaignOptions.layer({ perRecipientConcurrency: options.perRecipientConcurrency ?? 4 }),
              Logger.minimumLogLevel(LogLevel.Error)
            ))
          )
        ), timeout)

    const create = (id: string, count: number) =>
      Effect.flatMap(Campaigns, (c) => c.create({ id, template: TEMPLATE, recipients: Stream.fromIterable(recipients(count)) }))
    const idle = Effect.flatMap(CampaignInProcessQueue, (q) => q.idle)
    const status = (id: string) => Effect.flatMap(Campaigns, (c) => c.status(id))
    /** Every recipient got exactly one email, with the rendered body. */
    const expectOneEmailEach = (count: number) =>
      Effect.gen(function*() {
        const delivered = yield* Effect.flatMap(ScriptedMailer, (m) => m.delivered)
        const perRecipient = new Map<string, number>()
        for (const d of delivered) perRecipient.set(d.email.to, (perRecipient.get(d.email.to) ?? 0) + 1)
        expect(perRecipient.size).toBe(count)
        expect([...perRecipient.values()].every((n) => n === 1)).toBe(true)
        const sample = delivered.find((d) => d.email.to === "r7@example.com")!
        expect(sample.email).toMatchObject({ subject: "Hello Reader 7", text: "Dear Reader 7, this is for r7@example.com." })
      })
    const expectAddsUp = (id: string) =>
      Effect.map(status(id), (s) => {
        expect(s.total).toBe(s.sent + s.failed + s.remaining + s.reserved)
        return s
      })

    scenario("every recipient gets one email, each batch under its own key, and status adds up", {}, Effect.gen(function*() {
      yield* create("c1", 1_050)
      const started = yield* Effect.flatMap(Campaigns, (c) => c.start("c1"))
      expect(started.state).toBe("running")
      yield* idle
      yield* expectOneEmailEach(1_050)
      const keys = new Set((yield* Effect.flatMap(ScriptedMailer, (m) => m.delivered)).map((d) => d.idempotencyKey))
      expect([...keys].sort()).toEqual((yield* Effect.forEach(Array.from({ length: 11 }, (_, i) => i + 1), (batch) => campaignBatchKey("c1", batch))).sort())
      expect(yield* expectAddsUp("c1")).toMatchObject({ state: "completed", total: 1_050, sent: 1_050, duplicatesPrevented: 0 })
    }))

    scenario("every batch delivered twice, and all again later: one email each; the stopped ones are counted and alerted", {}, Effect.gen(function*() {
      const queue = yield* CampaignInProcessQueue
      yield* create("c1", 1_050)
      yield* Effect.flatMap(Campaigns, (c) => c.start("c1"))
      // A second copy of every batch message while the first ones are in flight.
      yield* queue.sendBatch(Array.from({ length: 11 }, (_, i) => campaignBatchMessage("c1", i + 1)))
      yield* idle
      expect(yield* expectAddsUp("c1")).toMatchObject({ sent: 1_050, duplicatesPrevented: 1_050 })
      yield* queue.sendBatch(Array.from({ length: 11 }, (_, i) => campaignBatchMessage("c1", i + 1)))
      yield* idle
      yield* expectOneEmailEach(1_050)
      expect(yield* expectAddsUp("c1")).toMatchObject({ sent: 1_050, duplicatesPrevented: 2_100 })
      const alerts = yield* Effect.flatMap(AlertStore, (s) => s.list({ limit: 10 }))
      expect(alerts.filter((a) => a.kind === "duplicates_spike")).toHaveLength(1)
    }))

    scenario(
      "pause stops new batches within one batch; resume continues where it stopped",
      // Twenty batches of 40 ms: the pause lands with most of them still to go, even on a loaded machine.
      { queueConcurrency: 1, mailer: { batch: true, otherwise: MailerSteps.slow("40 millis") } },
      Effect.gen(function*() {
        const campaigns = yield* Campaigns
        yield* create("c1", 2_000)
        yield* campaigns.start("c1")
        yield* until(status("c1"), (s) => s.sent >= 300)
        const paused = yield* campaigns.pause("c1")
        expect(paused.state).toBe("paused")
        yield* idle
        const settled = yield* expectAddsUp("c1")
        // One batch at a time: at most the batch in flight finished after the pause.
        expect(settled.sent).toBeLessThanOrEqual(paused.sent + 100)
        expect(settled.reserved).toBe(0)
        expect(settled.remaining).toBeGreaterThan(0)
        yield* realPause(50)
        expect((yield* status("c1")).sent).toBe(settled.sent)
        expect((yield* campaigns.resume("c1")).state).toBe("running")
        yield* idle
        yield* expectOneEmailEach(2_000)
        expect(yield* expectAddsUp("c1")).toMatchObject({ state: "completed", sent: 2_000 })
      })
    )

    scenario(
      "the state machine: each operation moves the campaign, repeats harmlessly (pause) or is refused with the state it found",
      // Slow batches, so the campaign is still running while the operations are tried.
      { queueConcurrency: 1, mailer: { batch: true, otherwise: MailerSteps.slow("150 millis") } },
      Effect.gen(function*() {
        const campaigns = yield* Campaigns
        const refused = <A, E extends { readonly _tag: string }>(effect: Effect.Effect<A, E>) =>
          Effect.map(Effect.flip(effect), (error) => ({ ...error }))
        const stateError = (state: string, operation: string) =>
          expect.objectContaining({ _tag: "CampaignStateError", campaignId: "c1", state, operation })
        yield* create("c1", 300)
        expect(yield* refused(campaigns.pause("c1"))).toEqual(stateError("draft", "pause"))
        expect(yield* refused(campaigns.resume("c1"))).toEqual(stateError("draft", "resume"))
        expect((yield* campaigns.start("c1")).state).toBe("running")
        expect(yield* refused(campaigns.start("c1"))).toEqual(stateError("running", "start"))
        expect(yield* refused(campaigns.resume("c1"))).toEqual(stateError("running", "resume"))
        expect((yield* campaigns.pause("c1")).state).toBe("paused")
        expect((yield* campaigns.pause("c1")).state).toBe("paused") // a repeat: unchanged
        expect(yield* refused(campaigns.start("c1"))).toEqual(stateError("paused", "start"))
        expect((yield* campaigns.resume("c1")).state).toMatch(/running|completed/)
        yield* idle
        expect(yield* expectAddsUp("c1")).toMatchObject({ state: "completed", sent: 300 })
        for (const operation of ["start", "pause", "resume"] as const) {
          expect(yield* refused(campaigns[operation]("c1"))).toEqual(stateError("completed", operation))
        }
        expect(yield* refused(campaigns.pause("nope"))).toMatchObject({ _tag: "CampaignNotFound" })
        yield* expectOneEmailEach(300)
      })
    )

    scenario(
      "a consumer that dies after the mailer accepted its batch: the lease expires and the batch is resent under the same key, never skipped",
      { leaseFor: "1 second" },
      Effect.gen(function*() {
        const store = yield* CampaignStore
        const mailer = yield* Mailer
        yield* create("c1", 250)
        yield* store.transition("c1", { from: ["draft"], to: "running", now: 0 })
        // The dying consumer: reserves batch 1, the mailer accepts it, and nothing is recorded.
        const now = yield* Clock.currentTimeMillis
        const reserved = yield* store.reserve("c1", 1, { size: 100, token: "dead", now, until: now + 300 })
        if (reserved._tag !== "Leased") return yield* Effect.dieMessage("expected a lease")
        const emails = reserved.members.map((m) => renderCampaignEmail(TEMPLATE, m))
        const key = yield* campaignBatchKey("c1", 1)
        yield* mailer.sendBatch!(emails, { idempotencyKey: key })
        // Redelivery of every open batch, batch 1 among them, while its lease is still held.
        expect(yield* Effect.flatMap(Campaigns, (c) => c.dispatch("c1"))).toBe(3)
        yield* idle
        yield* expectOneEmailEach(250)
        const calls = yield* Effect.flatMap(ScriptedMailer, (m) => m.calls)
        expect(calls.filter((c) => c.idempotencyKey === key)).toHaveLength(200) // two calls of 100
        expect(yield* expectAddsUp("c1")).toMatchObject({ state: "completed", sent: 250, reserved: 0 })
      })
    )

    scenario(
      "a mailer without batch sending gets one key per recipient",
      { mailer: { batch: false } },
      Effect.gen(function*() {
        yield* create("c1", 230)
        yield* Effect.flatMap(Campaigns, (c) => c.start("c1"))
        yield* idle
        yield* expectOneEmailEach(230)
        const delivered = yield* Effect.flatMap(ScriptedMailer, (m) => m.delivered)
        const expected = yield* Effect.forEach(delivered, (d) => campaignRecipientKey("c1", d.email.to))
        expect(delivered.map((d) => d.idempotencyKey)).toEqual(expected)
        expect(yield* expectAddsUp("c1")).toMatchObject({ sent: 230 })
      })
    )

    scenario(
      "a rejected batch is sent one recipient at a time: only the bad address fails, with an alert",
      {
        perRecipientConcurrency: 1,
        queueConcurrency: 1,
        mailer: { batch: true, script: [MailerSteps.rejected("invalid `to` field"), MailerSteps.succeed, MailerSteps.succeed, MailerSteps.rejected("invalid `to` field")] }
      },
      Effect.gen(function*() {
        yield* create("c1", 150)
        yield* Effect.flatMap(Campaigns, (c) => c.start("c1"))
        yield* idle
        const final = yield* expectAddsUp("c1")
        expect(final).toMatchObject({ sent: 149, failed: 1, reserved: 0, remaining: 0 })
        const delivered = yield* Effect.flatMap(ScriptedMailer, (m) => m.delivered)
        expect(delivered.map((d) => d.email.to)).not.toContain("r2@example.com")
        const alerts = yield* Effect.flatMap(AlertStore, (s) => s.list({ limit: 10 }))
        expect(alerts.map((a) => a.kind)).toEqual(["failed"])
        expect(alerts[0]!.id).toMatch(/^failed:campaign:c1:1:/)
      })
    )

    campaignCircuitCases(makeLayer)
    campaignSealedCases(makeLayer)

    scenario(
      "transient failures are retried through the queue with the same key; at the cap the recipients fail and the owner hears",
      { maxAttempts: 3, mailer: { batch: true, otherwise: MailerSteps.transient() } },
      Effect.gen(function*() {
        yield* create("c1", 120)
        yield* Effect.flatMap(Campaigns, (c) => c.start("c1"))
        yield* idle
        expect(yield* expectAddsUp("c1")).toMatchObject({ sent: 0, failed: 120, reserved: 0 })
        const calls = yield* Effect.flatMap(ScriptedMailer, (m) => m.calls)
        // Three recorded attempts per batch, each with its in-request retries, always the batch's key.
        expect(new Set(calls.map((c) => c.idempotencyKey))).toEqual(new Set([yield* campaignBatchKey("c1", 1), yield* campaignBatchKey("c1", 2)]))
        const alerts = yield* Effect.flatMap(AlertStore, (s) => s.list({ limit: 10 }))
        expect(alerts.map((a) => a.id.split(":").slice(0, 4).join(":")).sort()).toEqual(["capped:campaign:c1:1", "capped:campaign:c1:2"])
        expect(Option.isSome(yield* Effect.flatMap(CampaignStore, (s) => s.get("c1")))).toBe(true)
      })
    )
  })
