import * as EpochMillis from "../kernel/EpochMillis.js"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { CampaignBatchMessage } from "./campaign.js"
import type { StoreUnavailable } from "../kernel/store-errors.js"
import { keepDeadLetter } from "../queue/dead-letter.js"
import { Decision, type Delivery, retryDelay, retryNoLaterThan } from "../queue/delivery.js"
import type { BatchOutcome } from "./send-batch.js"

const decode = Schema.decodeUnknownEither(CampaignBatchMessage)

/**
 * The queue consumer of campaign batch messages, acknowledging last: `Ack`
 * once the batch's results are recorded, or when there is nothing to send (a
 * redelivered batch already sent, a paused campaign, an empty slot); `Retry`
 * while another delivery holds the batch, or when members await a retry; at the
 * breaker's next probe while the mailer is misconfigured (`Held`).
 */
export const campaignBatchHandler = <R>(
  send: (message: CampaignBatchMessage) => Effect.Effect<BatchOutcome, StoreUnavailable, R>,
  options: { readonly ackHeld?: boolean } = {}
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
        return Decision.Retry({ delay: Duration.millis(Math.max(0, outcome.nextProbeAt - now)) }) as Decision
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
