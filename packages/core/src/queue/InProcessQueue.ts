import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import { Decision, type Delivery } from "./delivery.js"

/** Cloudflare Queues' knobs, for the in-process queue. */
export interface InProcessQueueOptions {
  readonly name: string
  /** Deliveries handled at once (default 4). */
  readonly concurrency?: number
  /** Deliveries after the first before a message is given up (default 3, as Cloudflare Queues). */
  readonly maxRetries?: number
  /**
   * A delivery not decided within this long is delivered again while the first
   * may still be running, as a queue whose consumer timed out would (default 15
   * minutes, Cloudflare's consumer wall time). The late decision is ignored.
   */
  readonly visibilityTimeout?: Duration.DurationInput
  /** A message whose last delivery failed goes here (default: logged and dropped, as without a dead-letter queue). */
  readonly deadLetter?: (delivery: Delivery) => Effect.Effect<void>
}

/** Deliveries counted since the queue started. */
export interface InProcessQueueStats {
  /** Messages sent and not yet acknowledged or given up. */
  readonly outstanding: number
  readonly deliveries: number
  readonly acked: number
  readonly retried: number
  /** Deliveries that outlived the visibility timeout and were delivered again. */
  readonly timedOut: number
  readonly deadLettered: number
}

/** A queue in memory with Cloudflare Queues' semantics (ack last, retry with a delay, dead letters). */
export interface InProcessQueue<A> {
  readonly name: string
  readonly send: (body: A, options?: { readonly delay?: Duration.DurationInput }) => Effect.Effect<void>
  readonly sendBatch: (bodies: ReadonlyArray<A>) => Effect.Effect<void>
  /** Waits until every message sent so far is acknowledged or given up. */
  readonly idle: Effect.Effect<void>
  readonly stats: Effect.Effect<InProcessQueueStats>
}

interface Entry<A> {
  readonly id: string
  readonly body: A
  /** Deliveries so far. */
  deliveries: number
}

/**
 * A queue in the process, with Cloudflare Queues' semantics: at least once,
 * each delivery acknowledged or retried with a delay, a message given up after
 * `maxRetries` retries (to `deadLetter`), and a delivery that outlives the
 * visibility timeout delivered again. Messages live in memory: on Node the
 * durable state is the ledger, and the gateway sends the open work again on start.
 */
export const make = <A, R>(
  options: InProcessQueueOptions,
  handler: (delivery: Delivery<A>) => Effect.Effect<Decision, never, R>
): Effect.Effect<InProcessQueue<A>, never, Scope.Scope | R> =>
  Effect.gen(function*() {
    const ready = yield* Queue.unbounded<Entry<A>>()
    const outstanding = yield* SubscriptionRef.make(0)
    const stats = { deliveries: 0, acked: 0, retried: 0, timedOut: 0, deadLettered: 0 }
    const maxRetries = options.maxRetries ?? 3
    const visibility = Duration.decode(options.visibilityTimeout ?? "15 minutes")
    let nextId = 0
    // Delayed offers and running handlers end with the queue's scope.
    const scope = yield* Effect.scope

    const offerAfter = (entry: Entry<A>, delay: Duration.Duration): Effect.Effect<void> =>
      Duration.toMillis(delay) <= 0
        ? Queue.offer(ready, entry)
        : Effect.asVoid(Effect.forkIn(Effect.zipRight(Effect.sleep(delay), Queue.offer(ready, entry)), scope))

    const settle = (entry: Entry<A>, decision: Decision): Effect.Effect<void> => {
      if (decision._tag === "Ack") {
        stats.acked++
        return SubscriptionRef.update(outstanding, (n) => n - 1)
      }
      if (entry.deliveries > maxRetries) {
        stats.deadLettered++
        const last: Delivery<A> = { queue: options.name, id: entry.id, body: entry.body, attempts: entry.deliveries }
        return Effect.zipRight(
          options.deadLetter === undefined
            ? Effect.logWarning(`queue ${options.name} dropped message ${entry.id} after ${entry.deliveries} deliveries`)
            : Effect.catchAllCause(options.deadLetter(last), (cause) => Effect.logError("dead-letter handler failed", cause)),
          SubscriptionRef.update(outstanding, (n) => n - 1)
        )
      }
      stats.retried++
      return Effect.asVoid(offerAfter(entry, decision.delay))
    }

    const deliver = (entry: Entry<A>) =>
      Effect.gen(function*() {
        entry.deliveries++
        stats.deliveries++
        const delivery: Delivery<A> = { queue: options.name, id: entry.id, body: entry.body, attempts: entry.deliveries }
        const decided = yield* Deferred.make<Decision>()
        // The handler runs in a fiber of its own: past the visibility timeout the message is
        // delivered again while this delivery carries on, and its decision no longer counts.
        yield* handler(delivery).pipe(
          Effect.catchAllCause((cause) =>
            Effect.as(Effect.logError("queue handler failed", cause), Decision.Retry({ delay: Duration.zero }))
          ),
          Effect.flatMap((decision) => Deferred.succeed(decided, decision)),
          Effect.forkIn(scope)
        )
        const decision = yield* Effect.timeout(Deferred.await(decided), visibility).pipe(Effect.option)
        if (Option.isNone(decision)) stats.timedOut++
        yield* settle(entry, Option.getOrElse(decision, () => Decision.Retry({ delay: Duration.zero })))
      })

    yield* Effect.forkScoped(
      Effect.forever(Effect.flatMap(Queue.take(ready), deliver)).pipe(
        Effect.replicateEffect(options.concurrency ?? 4, { concurrency: "unbounded", discard: true })
      )
    )

    const enqueue = (bodies: ReadonlyArray<A>, delay: Duration.Duration) =>
      Effect.gen(function*() {
        yield* SubscriptionRef.update(outstanding, (n) => n + bodies.length)
        for (const body of bodies) {
          yield* offerAfter({ id: `${options.name}-${++nextId}`, body, deliveries: 0 }, delay)
        }
      })

    const queue: InProcessQueue<A> = {
      name: options.name,
      send: (body, sendOptions = {}) => enqueue([body], Duration.decode(sendOptions.delay ?? 0)),
      sendBatch: (bodies) => enqueue(bodies, Duration.zero),
      idle: outstanding.changes.pipe(Stream.takeUntil((n) => n <= 0), Stream.runDrain),
      stats: Effect.map(SubscriptionRef.get(outstanding), (n) => ({ outstanding: n, ...stats }))
    }
    return queue
  })
