import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type { CampaignBatchMessage, CampaignStatus, CampaignTemplate } from "./campaign.js"
import type { StoreUnavailable } from "../kernel/store-errors.js"
import type { Decision, Delivery } from "../queue/delivery.js"
import type { QueueUnavailable } from "../queue/errors.js"
import * as InProcessQueue from "../queue/InProcessQueue.js"
import { deadLetterHandler } from "../queue/dead-letter.js"
import { Alerter } from "../alerts/alerter.js"
import { CampaignQueue } from "./campaign-queue.js"
import { type CampaignRow, CampaignStore } from "./campaign-store.js"
import { DeadLetterStore } from "../queue/dead-letters.js"
import { Mailer } from "../mail/mailer.js"
import { AlertStore } from "../alerts/alert-store.js"
import { RetryPolicy } from "../kernel/retry-policy.js"
import { dispatchCampaign, pauseCampaign, resumeCampaign, startCampaign } from "./control.js"
import { createCampaign, type CreateCampaignInput } from "./create.js"
import type { CampaignExists, CampaignNotFound, CampaignStateError, InvalidCampaign, InvalidRecipient, RecipientTooLarge } from "./errors.js"
import { campaignBatchHandler } from "./handler.js"
import { CampaignOptions } from "./options.js"
import { type BatchOutcome, sendCampaignBatch } from "./send-batch.js"
import { campaignStatus } from "./status.js"

/** The campaign service: its control operations and the batch consumer. */
export interface CampaignsShape {
  /** Creates a draft and streams its recipients into the ledger (flat memory). */
  readonly create: <E, R>(
    input: CreateCampaignInput<E, R>
  ) => Effect.Effect<CampaignStatus, E | CampaignExists | InvalidCampaign | InvalidRecipient | RecipientTooLarge | CampaignNotFound | StoreUnavailable, R>
  readonly start: (id: string) => Effect.Effect<CampaignStatus, Control>
  readonly pause: (id: string) => Effect.Effect<CampaignStatus, Control>
  readonly resume: (id: string) => Effect.Effect<CampaignStatus, Control>
  readonly status: (id: string) => Effect.Effect<CampaignStatus, CampaignNotFound | StoreUnavailable>
  readonly list: (options?: { readonly limit?: number }) => Effect.Effect<ReadonlyArray<CampaignRow>, StoreUnavailable>
  /** Sends a message for every batch still open (recovery after a restart; `start` and `resume` do it). */
  readonly dispatch: (id: string) => Effect.Effect<number, StoreUnavailable | QueueUnavailable>
  /** One delivery of a batch message. */
  readonly sendBatch: (message: CampaignBatchMessage) => Effect.Effect<BatchOutcome, StoreUnavailable>
  /** The queue consumer of batch messages (ack last, retry with the RetryPolicy's backoff). */
  readonly handle: (delivery: Delivery) => Effect.Effect<Decision>
}

type Control = CampaignNotFound | CampaignStateError | StoreUnavailable | QueueUnavailable

type Needs = CampaignStore | CampaignQueue | Mailer | RetryPolicy | AlertStore | Alerter | DeadLetterStore

/** Builds the service from the services in context (a template cache lives with it: a started campaign's template never changes). */
const makeCampaignsWith = (handlerOptions: { readonly ackHeld?: boolean }): Effect.Effect<CampaignsShape, never, Needs> => Effect.gen(function*() {
  const context = yield* Effect.context<Needs>()
  const options = yield* CampaignOptions
  const store = Context.get(context, CampaignStore)
  const templates = new Map<string, CampaignTemplate>()
  const templateOf = (id: string) =>
    templates.has(id)
      ? Effect.succeed(Option.some(templates.get(id)!))
      : Effect.map(store.get(id), (row) =>
        Option.map(row, (r) => {
          templates.set(id, r.template)
          return r.template
        }))
  const run = <A, E>(effect: Effect.Effect<A, E, Needs | CampaignOptions>) =>
    effect.pipe(Effect.provide(context), Effect.provideService(CampaignOptions, options))
  const sendBatch = (message: CampaignBatchMessage) => run(sendCampaignBatch(message, templateOf))
  const queue = Context.get(context, CampaignQueue)
  const enqueueLater = queue.enqueueLater
  const handle = campaignBatchHandler(sendBatch, {
    ...handlerOptions,
    ...(enqueueLater === undefined ? {} : { requeue: (message, delay) => enqueueLater([message], delay) })
  })
  return {
    create: <E, R>(input: CreateCampaignInput<E, R>) =>
      createCampaign(input).pipe(
        Effect.provideService(CampaignStore, store),
        Effect.provideService(CampaignOptions, options)
      ),
    start: (id) => run(startCampaign(id)),
    pause: (id) => run(pauseCampaign(id)),
    resume: (id) => run(resumeCampaign(id)),
    status: (id) => run(campaignStatus(id)),
    list: (listOptions = {}) => store.list({ limit: listOptions.limit ?? 100 }),
    dispatch: (id) => run(dispatchCampaign(id)),
    sendBatch,
    handle: (delivery) => run(handle(delivery))
  }
})

const makeCampaigns = makeCampaignsWith({})

/** Options of `Campaigns.layerInProcess`: the in-process queue's knobs. */
export interface InProcessCampaignsOptions extends Partial<Omit<InProcessQueue.InProcessQueueOptions, "deadLetter">> {
  /** Alert once the campaign queue has given up on this many messages (default 1). */
  readonly deadLetterAlertThreshold?: number
  /**
   * Acknowledge a batch held because the mailer is misconfigured, instead of retrying it at
   * the breaker's next probe (default false). Only where something dispatches the open batches
   * of running campaigns again (the Node gateway's watcher does, once the breaker lets a probe
   * through): however long the outage, the queue then never gives up on held messages.
   */
  readonly ackHeld?: boolean
}

/** The in-process queue behind `Campaigns.layerInProcess`: `idle` waits for it to drain, `stats` counts deliveries. */
export class CampaignInProcessQueue extends Context.Tag("@hookgate/core/CampaignInProcessQueue")<
  CampaignInProcessQueue,
  InProcessQueue.InProcessQueue<unknown>
>() {}

/** Campaigns: create, start, pause, resume, status, and the batch consumer. */
export class Campaigns extends Context.Tag("@hookgate/core/Campaigns")<Campaigns, CampaignsShape>() {
  /** The service, built from the services in context (its `CampaignQueue` among them). */
  static make(): Effect.Effect<CampaignsShape, never, Needs> {
    return makeCampaigns
  }

  /** On the `CampaignQueue` in context (a Cloudflare Queue producer, say). */
  static layer(): Layer.Layer<Campaigns, never, Needs> {
    return Layer.effect(Campaigns, makeCampaigns)
  }

  /**
   * With the in-process queue (Node): `Campaigns` and the `CampaignQueue` it
   * consumes, its consumers running for the layer's lifetime. Messages given up
   * are kept as dead letters. The queue lives in memory: call `dispatch` for
   * running campaigns after a restart (the Node gateway does).
   */
  static layerInProcess(
    options: InProcessCampaignsOptions = {}
  ): Layer.Layer<Campaigns | CampaignQueue | CampaignInProcessQueue, never, Exclude<Needs, CampaignQueue>> {
    return Layer.scopedContext(
      Effect.gen(function*() {
        // The queue's consumer and the service need each other: the consumer reads it once built.
        let service: CampaignsShape | undefined
        const deadLetters = deadLetterHandler({ alertThreshold: options.deadLetterAlertThreshold ?? 1 })
        const context = yield* Effect.context<Exclude<Needs, CampaignQueue> | Scope.Scope>()
        const queue = yield* InProcessQueue.make<unknown, never>({
          name: options.name ?? "hookgate-campaigns",
          ...options,
          deadLetter: (delivery) => Effect.asVoid(Effect.provide(deadLetters(delivery), context))
        }, (delivery) => Effect.suspend(() => service!.handle(delivery)))
        const campaignQueue = CampaignQueue.of({ enqueue: (messages) => queue.sendBatch(messages) })
        service = yield* Effect.provideService(makeCampaignsWith({ ackHeld: options.ackHeld ?? false }), CampaignQueue, campaignQueue)
        return Context.make(Campaigns, service).pipe(
          Context.add(CampaignQueue, campaignQueue),
          Context.add(CampaignInProcessQueue, queue)
        )
      })
    )
  }
}
