import * as EpochMillis from "../kernel/EpochMillis.js"
import * as Effect from "effect/Effect"
import { DeadLetter } from "./message.js"
import * as Metrics from "../observability/Metrics.js"
import { spanWhenTraced } from "../kernel/spans.js"
import { newAlert, raiseAlert } from "../alerts/raise.js"
import { DeadLetterStore } from "./dead-letters.js"
import { Decision, type Delivery, retryDelay } from "./delivery.js"

/** When the owner hears of dead letters. */
export interface DeadLetterOptions {
  /**
   * Alert once the queue holds at least this many dead letters (default 1: a
   * dead letter is work that was not done). At most one alert per queue and day.
   */
  readonly alertThreshold?: number
}

const bodyText = (body: unknown): string => {
  if (typeof body === "string") return body
  try {
    return JSON.stringify(body) ?? String(body)
  } catch {
    return String(body)
  }
}

/** Stores a message a queue gave up on; alerts the owner when the queue's count reaches the threshold. */
export const keepDeadLetter = (delivery: Delivery, options: DeadLetterOptions = {}) =>
  Effect.gen(function*() {
    const store = yield* DeadLetterStore
    const now = yield* EpochMillis.now
    const count = yield* store.put(
      new DeadLetter({
        queue: delivery.queue,
        messageId: delivery.id,
        body: bodyText(delivery.body),
        attempts: delivery.attempts,
        receivedAt: now
      })
    )
    yield* Metrics.deadLetter(delivery.queue)
    const threshold = options.alertThreshold ?? 1
    if (count >= threshold) {
      const day = new Date(now).toISOString().slice(0, 10)
      yield* raiseAlert(newAlert({
        id: `dead_letter:${delivery.queue}:${day}`,
        kind: "dead_letter",
        orderKey: null,
        message: `queue ${delivery.queue} holds ${count} dead letter(s) (threshold ${threshold}): ` +
          `their work was not done; the latest is message ${delivery.id}`
      }, now))
    }
    return count
  }).pipe(spanWhenTraced("dead_letter", { queue: delivery.queue }))

/**
 * The consumer of a dead-letter queue: keeps each message and acknowledges it
 * once stored; retries it when the store cannot take it.
 */
export const deadLetterHandler = (options: DeadLetterOptions = {}) => (delivery: Delivery) =>
  keepDeadLetter(delivery, options).pipe(
    Effect.as(Decision.Ack() as Decision),
    Effect.catchAll((error) =>
      Effect.zipRight(
        Effect.logError("a dead letter could not be stored", error),
        Effect.map(retryDelay(delivery.attempts), (delay) => Decision.Retry({ delay }))
      )
    )
  )
