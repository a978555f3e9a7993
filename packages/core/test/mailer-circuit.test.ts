import { describe, expect, it } from "@effect/vitest"
import { OrderStore, receive, sweep } from "@hookgate/core"
import { answerOutcome } from "@hookgate/core/http"
import { MailerCircuit } from "@hookgate/core/mail"
import {
  MailerSteps,
  MemoryStore,
  paidEvent,
  RecordingAlerter,
  ScriptedMailer,
  signTestRequest,
  TEST_SECRET,
  TestPipeline,
  TestProvider
} from "@hookgate/testing"
import { Effect, Layer, Option, Schedule, TestClock } from "effect"
import { noCircuit } from "../src/mail/circuit.js"

// A mail-account error (revoked key, unverified domain) is not the order's fault:
// nothing is counted, the breaker stops sending, probes on its schedule, and once
// the account is fixed the sweep sends every held order.

const webhook = (id: string) =>
  Effect.flatMap(
    signTestRequest(TEST_SECRET, paidEvent(`evt_${id}`, { orderId: id, email: `${id}@example.com`, amount: 100, currency: "usd" })),
    (request) => receive("test", request)
  )

const order = (id: string) =>
  Effect.flatMap(OrderStore, (store) => Effect.map(store.get(`test:${id}`), Option.getOrThrow))

const calls = Effect.flatMap(ScriptedMailer, (m) => m.calls)
const mailer = Effect.flatMap(MailerCircuit, (circuit) => circuit.status)

const pipeline = (script: ReadonlyArray<ReturnType<typeof MailerSteps.misconfigured>>) =>
  TestPipeline.layer({
    store: MemoryStore.layer,
    providers: [TestProvider.make({ secret: TEST_SECRET })],
    mailer: { script },
    policy: { maxAttempts: 3 },
    circuit: { probeEvery: Schedule.spaced("1 minute") }
  })

describe("mailer circuit", () => {
  it.effect("a misconfigured mailer holds every order uncounted, answers 503, probes, and the sweep sends all once fixed", () =>
    Effect.gen(function*() {
      const ids = Array.from({ length: 5 }, (_, i) => `o${i}`)
      const outcomes = yield* Effect.forEach(ids, webhook)
      expect(outcomes.map((o) => o._tag)).toEqual(ids.map(() => "Held"))
      expect(outcomes.map((o) => answerOutcome(o).httpStatus)).toEqual(ids.map(() => 503))
      expect(answerOutcome(outcomes[0]!).body).toMatchObject({ status: "unavailable", reason: "mailer_misconfigured" })
      // Only the first webhook reached the mailer: the breaker holds the rest without a call.
      expect(yield* calls).toHaveLength(1)
      for (const id of ids) {
        const held = yield* order(id)
        expect({ status: held.status, attempts: held.attempts }).toEqual({ status: "pending", attempts: 0 })
        expect(held.nextAttemptAt).toBe(60_000)
      }
      expect(yield* mailer).toMatchObject({ mailer: "misconfigured", errorClass: "Misconfigured", code: "restricted_api_key" })
      const alerts = yield* Effect.flatMap(RecordingAlerter, (r) => r.attempts)
      expect(alerts.map((a) => a.kind)).toEqual(["mailer_misconfigured"])

      // While open the sweep does not even look.
      yield* TestClock.adjust("30 seconds")
      expect(yield* sweep()).toMatchObject({ scanned: 0, sent: 0 })
      expect(yield* calls).toHaveLength(1)

      // First probe at 1 minute: still broken (the script's second step). One call, nothing counted.
      yield* TestClock.adjust("30 seconds")
      const probe1 = yield* sweep({ concurrency: 1 })
      expect(probe1.sent).toBe(0)
      expect(yield* calls).toHaveLength(2)
      expect((yield* order("o0")).attempts).toBe(0)
      expect(yield* mailer).toMatchObject({ mailer: "misconfigured" })

      // Fixed (the script ran out: the mailer accepts). The next probe closes the breaker and
      // the sweep sends every held order: each buyer gets exactly one email.
      yield* TestClock.adjust("1 minute")
      const report = yield* sweep({ concurrency: 1 })
      expect(report).toMatchObject({ sent: 5, failed: 0, capped: 0 })
      const delivered = yield* Effect.flatMap(ScriptedMailer, (m) => m.delivered)
      expect(delivered.map((d) => d.email.to).sort()).toEqual(ids.map((id) => `${id}@example.com`))
      for (const id of ids) expect((yield* order(id)).status).toBe("sent")
      expect(yield* mailer).toEqual({ mailer: "ok" })
    }).pipe(Effect.provide(pipeline([MailerSteps.misconfigured(), MailerSteps.misconfigured()]))))

  it.effect("without a breaker layer, a misconfigured answer still holds the order uncounted (never failed or capped)", () =>
    Effect.gen(function*() {
      for (let i = 0; i < 4; i++) {
        const outcome = yield* webhook("o1")
        expect(outcome._tag === "Held" || outcome._tag === "Retry").toBe(true)
        yield* TestClock.adjust("1 minute")
        yield* sweep()
      }
      // No breaker: each try reached the mailer (webhook or sweep), none was counted.
      expect((yield* calls).length).toBeGreaterThanOrEqual(4)
      const held = yield* order("o1")
      expect({ status: held.status, attempts: held.attempts }).toEqual({ status: "pending", attempts: 0 })
    }).pipe(Effect.provide(Layer.merge(
      TestPipeline.layer({
        store: MemoryStore.layer,
        providers: [TestProvider.make({ secret: TEST_SECRET })],
        mailer: { otherwise: MailerSteps.misconfigured() },
        policy: { maxAttempts: 3 }
      }),
      // Overrides the pipeline's breaker: every send reaches the mailer.
      Layer.succeed(MailerCircuit, noCircuit)
    ))))
})
