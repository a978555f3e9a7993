import * as EpochMillis from "../kernel/EpochMillis.js"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { CampaignBatchMessage } from "./campaign.js"
import type { StoreUnavailable } from "../kernel/store-errors.js"
import { keepDeadLetter } from "../queue/dead-letter.js"
import { Decision, type Delivery, retryDelay, retryNoLaterThan } from "../queue/delivery.js"
import type { QueueUnavailable } from "../queue/errors.js"
import type { BatchOutcome } from "./send-batch.js"

let decoder: ((input: unknown) => Either.Either<CampaignBatchMessage, ParseResult.ParseError>) | undefined
const decode = (input: unknown) => (decoder ??= Schema.decodeUnknownEither(CampaignBatchMessage))(input)

/**
 * The queue consumer of campaign batch messages, acknowledging last: `Ack`
 * once the batch's results are recorded, or when there is nothing to send (a
 * redelivered batch already sent, a paused campaign, an empty slot); `Retry`
 * while another delivery holds the batch, or when members await a retry; at the
 * breaker's next probe while the mailer is misconfigured (`Held`): as a fresh message
 * sent with that delay (`requeue`) and this delivery acknowledged, when the queue can
 * delay one, else as a retry of this one.
 */
export const campaignBatchHandler = <R>(
  send: (message: CampaignBatchMessage) => Effect.Effect<BatchOutcome, StoreUnavailable, R>,
  options: {
    readonly ackHeld?: boolean
    readonly requeue?: (message: CampaignBatchMessage, delay: Duration.Duration) => Effect.Effect<void, QueueUnavailable>
  } = {}
) =>
(delivery: Delivery) =>
  Effect.gen(function*() {
    const message = decode(delivery.body)
    if (Either.isLeft(message)) {
      yield* Effect.logError("a campaign queue message that cannot be read goes to the dead letters").pipe(
        Effect.annotateLogs({ queue: delivery.queue, messageId: delivery.id })
      )
      yield* keepDeadLetter(delivery)
      return Decision.Ack() as Decision
    }
    const outcome = yield* send(message.right)
    switch (outcome._tag) {
      case "Sent":
        return outcome.retry === 0
          ? Decision.Ack() as Decision
          : Decision.Retry({ delay: yield* retryDelay(outcome.attempts) }) as Decision
      case "InProgress":
        return yield* retryNoLaterThan(delivery.attempts, outcome.until, yield* EpochMillis.now)
      case "Held": {
        // The mailer is misconfigured: again at the breaker's next probe (or, with `ackHeld`,
        // when whoever dispatches open batches does so again).
        if (options.ackHeld === true) return Decision.Ack() as Decision
        const now = yield* EpochMillis.now
        const delay = Duration.millis(Math.max(0, outcome.nextProbeAt - now))
        // A fresh message, then the ack: this delivery's count never nears the queue's retry limit.
        // (Should the ack be lost, the copy is one more delivery of a batch: harmless.)
        if (options.requeue !== undefined) {
          const requeued = yield* Effect.either(options.requeue(message.right, delay))
          if (Either.isRight(requeued)) return Decision.Ack() as Decision
          yield* Effect.logWarning("a held campaign batch could not be sent again as a new message; it is retried", requeued.left)
        }
        return Decision.Retry({ delay }) as Decision
      }
      default:
        return Decision.Ack() as Decision
    }
  }).pipe(
    Effect.catchAllCause((cause) =>
      Effect.zipRight(
        Effect.logWarning("a campaign batch delivery failed; it will be delivered again", cause),
        Effect.map(retryDelay(delivery.attempts), (delay) => Decision.Retry({ delay }) as Decision)
      )
    )
  )
