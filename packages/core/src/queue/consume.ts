import * as EpochMillis from "../kernel/EpochMillis.js"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { Decision, type Delivery, retryDelay, retryNoLaterThan } from "./delivery.js"
import { keepDeadLetter } from "./dead-letter.js"
import { once, type OnceOptions } from "./once.js"

/** What `Consumer.handler` needs: how to decode a body, its key, and the work. */
export interface OnceHandlerOptions<S, A, E, R> extends OnceOptions {
  /** Decodes the body; a body that does not decode is a dead letter at once (retrying cannot help). */
  readonly schema: Schema.Schema<S, any, never>
  /** The stable key of the work: the producer's id for it, or its natural key (`order-8812-charge`). */
  readonly key: (body: S, delivery: Delivery) => string
  readonly handle: (body: S, delivery: Delivery) => Effect.Effect<A, E, R>
}

/**
 * A queue handler that acts once per message key (`Consumer.once`) and acknowledges last:
 * `Ack` when the effect ran and was recorded, or had already run; `Retry` when it is running
 * elsewhere (no later than that lease's end) or failed (after the RetryPolicy's backoff).
 */
export const handler = <S, A, E, R>(options: OnceHandlerOptions<S, A, E, R>) => {
  const decode = Schema.decodeUnknownEither(options.schema)
  return (delivery: Delivery) =>
    Effect.gen(function*() {
      const body = decode(delivery.body)
      if (Either.isLeft(body)) {
        yield* Effect.logError("a queue message that cannot be read goes to the dead letters").pipe(
          Effect.annotateLogs({ queue: delivery.queue, messageId: delivery.id, detail: body.left.message })
        )
        yield* keepDeadLetter(delivery)
        return Decision.Ack() as Decision
      }
      const result = yield* once(options.key(body.right, delivery), options.handle(body.right, delivery), options)
      if (result._tag !== "InProgress") return Decision.Ack() as Decision
      return yield* retryNoLaterThan(delivery.attempts, result.until, yield* EpochMillis.now)
    }).pipe(
      Effect.catchAllCause((cause) =>
        Effect.zipRight(
          Effect.logWarning("a queue message failed; it will be delivered again", cause).pipe(
            Effect.annotateLogs({ queue: delivery.queue, messageId: delivery.id, attempts: delivery.attempts })
          ),
          Effect.map(retryDelay(delivery.attempts), (delay) => Decision.Retry({ delay }) as Decision)
        )
      )
    )
}
