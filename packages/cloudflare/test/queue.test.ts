import { describe, expect, it } from "@effect/vitest"
import { Cloudflare } from "@hookgate/cloudflare"
import { RetryPolicy } from "@hookgate/core"
import { Alerter, AlertStore } from "@hookgate/core/alerts"
import { Mailer } from "@hookgate/core/mail"
import { Providers } from "@hookgate/core/providers"
import { Consumer, deadLetterHandler, DeadLetterStore } from "@hookgate/core/queue"
import { MemoryLedgers, MemoryStore, ScriptedMailer, TestRenderer } from "@hookgate/testing"
import { Context, Effect, Layer, Logger, LogLevel, Schema } from "effect"
import { executionContext } from "./support.js"

/** A message as the runtime hands it, recording what the Worker did with it. */
const message = (id: string, body: unknown, attempts = 1) => {
  const calls: Array<string> = []
  const value: Cloudflare.WorkerMessage = {
    id,
    body,
    attempts,
    ack: () => void calls.push("ack"),
    retry: (options) => void calls.push(`retry ${options?.delaySeconds}`)
  }
  return { message: value, calls }
}

const Job = Schema.Struct({ key: Schema.String, fail: Schema.optional(Schema.Boolean) })

/** A Worker consuming "jobs" once per key and keeping "jobs-dlq" as dead letters, on the in-memory stores. */
const queueWorker = () => {
  const effects: Array<string> = []
  const stores = MemoryLedgers.layer.pipe(Layer.provideMerge(MemoryStore.layer))
  let context: Context.Context<AlertStore | DeadLetterStore> | undefined
  const layer = Layer.mergeAll(
    Layer.effect(Mailer, ScriptedMailer.make()),
    Alerter.layerLog(),
    Providers.layer(),
    TestRenderer.layer,
    RetryPolicy.layer(),
    Logger.minimumLogLevel(LogLevel.None),
    Layer.effectDiscard(Effect.map(Effect.context<AlertStore | DeadLetterStore>(), (c) => void (context = c)))
  ).pipe(Layer.provideMerge(stores))
  const worker = Cloudflare.makeWorker({
    layer,
    jsonLogs: false,
    queues: {
      jobs: Consumer.handler({
        schema: Job,
        key: (job) => job.key,
        handle: (job) => (job.fail === true ? Effect.fail("declined") : Effect.sync(() => void effects.push(job.key)))
      }),
      "jobs-dlq": deadLetterHandler({ alertThreshold: 2 })
    }
  })
  const read = <A>(f: (c: Context.Context<AlertStore | DeadLetterStore>) => Effect.Effect<A, unknown>) => Effect.runPromise(Effect.orDie(f(context!)))
  return { worker, effects, read }
}

describe("makeWorker: queue consumers", () => {
  it("acks each message after its effect is recorded; the same work sent twice runs once and both are acked", async () => {
    const { effects, worker } = queueWorker()
    const { ctx } = executionContext()
    const first = message("q-1", { key: "order-8812-charge" })
    const second = message("q-2", { key: "order-8812-charge" })
    await worker.queue({ queue: "jobs", messages: [first.message] }, {}, ctx)
    await worker.queue({ queue: "jobs", messages: [second.message] }, {}, ctx)
    expect(effects).toEqual(["order-8812-charge"])
    expect([first.calls, second.calls]).toEqual([["ack"], ["ack"]])
  })

  it("a failing effect is retried with delaySeconds stepped from the RetryPolicy's backoff (1 min, 3 min, … jittered)", async () => {
    const { worker } = queueWorker()
    const { ctx } = executionContext()
    const delays: Array<number> = []
    for (const attempts of [1, 2, 3]) {
      const { calls, message: m } = message(`q-${attempts}`, { key: "k", fail: true }, attempts)
      await worker.queue({ queue: "jobs", messages: [m] }, {}, ctx)
      expect(calls).toHaveLength(1)
      delays.push(Number(calls[0]!.replace("retry ", "")))
    }
    // Default backoff: 1, 3, 9 minutes, each jittered by up to ±20%.
    expect(delays[0]).toBeGreaterThanOrEqual(48)
    expect(delays[0]).toBeLessThanOrEqual(72)
    expect(delays[1]).toBeGreaterThanOrEqual(144)
    expect(delays[1]).toBeLessThanOrEqual(216)
    expect(delays[2]).toBeGreaterThanOrEqual(432)
    expect(delays[2]).toBeLessThanOrEqual(648)
  })

  it("the dead-letter consumer stores what arrived and alerts once the count reaches its threshold", async () => {
    const { read, worker } = queueWorker()
    const { ctx, settle } = executionContext()
    const one = message("q-9", { key: "k", fail: true }, 4)
    await worker.queue({ queue: "jobs-dlq", messages: [one.message] }, {}, ctx)
    expect(await read((c) => Context.get(c, AlertStore).list({ limit: 10 }))).toEqual([])
    const two = message("q-10", { key: "j", fail: true }, 4)
    await worker.queue({ queue: "jobs-dlq", messages: [two.message] }, {}, ctx)
    await settle()
    expect([one.calls, two.calls]).toEqual([["ack"], ["ack"]])
    const letters = await read((c) => Context.get(c, DeadLetterStore).list({ limit: 10 }))
    expect(letters.map((l) => [l.queue, l.messageId, l.attempts]).sort()).toEqual([["jobs-dlq", "q-10", 4], ["jobs-dlq", "q-9", 4]])
    const alerts = await read((c) => Context.get(c, AlertStore).list({ limit: 10 }))
    expect(alerts).toMatchObject([{ kind: "dead_letter" }])
  })
})
