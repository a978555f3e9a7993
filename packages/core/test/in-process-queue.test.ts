import { describe, expect, it } from "@effect/vitest"
import { RetryPolicy } from "@hookgate/core"
import { AlertStore } from "@hookgate/core/alerts"
import {
  Consumer,
  deadLetterHandler,
  DeadLetterStore,
  Decision,
  type Delivery,
  InProcessQueue
} from "@hookgate/core/queue"
import { MemoryAlertStore, MemoryLedgers, RecordingAlerter } from "@hookgate/testing"
import { Deferred, Duration, Effect, Layer, Logger, LogLevel, Ref, Schema } from "effect"

const services = Layer.mergeAll(
  MemoryLedgers.layer.pipe(Layer.provideMerge(MemoryAlertStore.layer)),
  RecordingAlerter.layer(),
  RetryPolicy.layer({ backoffBase: "10 millis" }),
  Logger.minimumLogLevel(LogLevel.None)
)

describe("the in-process queue (Cloudflare Queues' semantics)", () => {
  it.live("acks, retries with the handler's delay, and gives a message up after maxRetries to the dead-letter handler", () =>
    Effect.gen(function*() {
      const seen = yield* Ref.make<ReadonlyArray<Delivery<string>>>([])
      const given = yield* Ref.make<ReadonlyArray<Delivery>>([])
      const queue = yield* InProcessQueue.make<string, never>(
        { name: "jobs", maxRetries: 2, deadLetter: (d) => Ref.update(given, (l) => [...l, d]) },
        (delivery) =>
          Effect.as(
            Ref.update(seen, (l) => [...l, delivery]),
            delivery.body === "ok" || (delivery.body === "flaky" && delivery.attempts === 2)
              ? Decision.Ack()
              : Decision.Retry({ delay: Duration.millis(20) })
          )
      )
      const started = Date.now()
      yield* queue.sendBatch(["ok", "flaky", "doomed"])
      yield* queue.idle
      const deliveries = yield* Ref.get(seen)
      const attempts = (body: string) => deliveries.filter((d) => d.body === body).map((d) => d.attempts)
      expect(attempts("ok")).toEqual([1])
      expect(attempts("flaky")).toEqual([1, 2])
      expect(attempts("doomed")).toEqual([1, 2, 3])
      expect(Date.now() - started).toBeGreaterThanOrEqual(40) // two delays of 20 ms before the third delivery
      expect((yield* Ref.get(given)).map((d) => [d.body, d.attempts])).toEqual([["doomed", 3]])
      expect(yield* queue.stats).toMatchObject({ outstanding: 0, acked: 2, retried: 3, deadLettered: 1, deliveries: 6 })
    }).pipe(Effect.scoped))

  it.live("a delivery that outlives the visibility timeout is delivered again while it runs; its late decision does not count", () =>
    Effect.gen(function*() {
      const release = yield* Deferred.make<void>()
      const decisions = yield* Ref.make<ReadonlyArray<string>>([])
      const queue = yield* InProcessQueue.make<string, never>({ name: "jobs", visibilityTimeout: "30 millis" }, (delivery) =>
        delivery.attempts === 1
          // The first consumer stalls past the timeout, then answers Retry (too late).
          ? Effect.as(Effect.zipRight(Deferred.await(release), Ref.update(decisions, (l) => [...l, "late retry"])), Decision.Retry({ delay: Duration.zero }) as Decision)
          : Effect.as(Ref.update(decisions, (l) => [...l, `ack on delivery ${delivery.attempts}`]), Decision.Ack() as Decision))
      yield* queue.send("slow")
      yield* queue.idle
      yield* Deferred.succeed(release, undefined)
      yield* Effect.sleep("20 millis")
      expect(yield* Ref.get(decisions)).toEqual(["ack on delivery 2", "late retry"])
      expect(yield* queue.stats).toMatchObject({ outstanding: 0, deliveries: 2, timedOut: 1, acked: 1 })
    }).pipe(Effect.scoped))

  describe("with Consumer.handler (the Node gateway's consumer)", () => {
    const jobs = Schema.Struct({ key: Schema.String, fail: Schema.optional(Schema.Literal("once", "always")) })
    const consumer = (effects: Ref.Ref<ReadonlyArray<string>>, runs: Ref.Ref<number>) =>
      Consumer.handler({
        schema: jobs,
        key: (job) => job.key,
        handle: (job) =>
          Effect.flatMap(Ref.updateAndGet(runs, (n) => n + 1), (run) =>
            job.fail === "always" || (job.fail === "once" && run === 1)
              ? Effect.fail(`run ${run} failed`)
              : Ref.update(effects, (l) => [...l, job.key]))
      })
    type Needs = Effect.Effect.Context<ReturnType<ReturnType<typeof consumer>>> | Effect.Effect.Context<ReturnType<ReturnType<typeof deadLetterHandler>>>
    const setup = Effect.gen(function*() {
      const effects = yield* Ref.make<ReadonlyArray<string>>([])
      const runs = yield* Ref.make(0)
      const context = yield* Effect.context<Needs>()
      const dead = deadLetterHandler({ alertThreshold: 1 })
      const queue = yield* InProcessQueue.make<unknown, Needs>(
        { name: "jobs", maxRetries: 2, deadLetter: (delivery) => Effect.asVoid(Effect.provide(dead(delivery), context)) },
        consumer(effects, runs)
      )
      return { effects, runs, queue }
    })

    it.live("the same message sent twice: one side effect, two acks", () =>
      Effect.gen(function*() {
        const { effects, queue } = yield* setup
        yield* queue.send({ key: "order-8812-charge" })
        yield* queue.send({ key: "order-8812-charge" })
        yield* queue.idle
        expect(yield* Ref.get(effects)).toEqual(["order-8812-charge"])
        expect(yield* queue.stats).toMatchObject({ acked: 2, deadLettered: 0 })
      }).pipe(Effect.scoped, Effect.provide(services)))

    it.live("a failing effect is retried and completed once", () =>
      Effect.gen(function*() {
        const { effects, queue, runs } = yield* setup
        yield* queue.send({ key: "order-1-charge", fail: "once" })
        yield* queue.idle
        expect(yield* Ref.get(effects)).toEqual(["order-1-charge"])
        expect(yield* Ref.get(runs)).toBe(2)
        expect(yield* queue.stats).toMatchObject({ acked: 1, retried: 1 })
      }).pipe(Effect.scoped, Effect.provide(services)))

    it.live("exhausted retries: the message is stored as a dead letter and the owner alerted", () =>
      Effect.gen(function*() {
        const { effects, queue, runs } = yield* setup
        yield* queue.send({ key: "order-2-charge", fail: "always" })
        yield* queue.idle
        expect(yield* Ref.get(effects)).toEqual([])
        expect(yield* Ref.get(runs)).toBe(3)
        const letters = yield* Effect.flatMap(DeadLetterStore, (s) => s.list({ limit: 10 }))
        expect(letters).toMatchObject([{ queue: "jobs", attempts: 3, body: JSON.stringify({ key: "order-2-charge", fail: "always" }) }])
        const alerts = yield* Effect.flatMap(AlertStore, (s) => s.list({ limit: 10 }))
        expect(alerts.map((a) => a.kind)).toEqual(["dead_letter"])
        const attempted = yield* Effect.flatMap(RecordingAlerter, (r) => r.attempts)
        expect(attempted).toHaveLength(1)
      }).pipe(Effect.scoped, Effect.provide(services)))
  })
})
