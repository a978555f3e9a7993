/**
 * In-memory `MessageLedger`, `DeadLetterStore` and `CampaignStore` with the SQL
 * store's semantics: `MemoryLedgers.layer` on the in-memory `AlertStore` in context,
 * or each on its own (`makeMessageLedger()`, `makeDeadLetters()`, `makeCampaignStore()`).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type Alert, AlertStore } from "@hookgate/core/alerts"
import { CampaignStore, type CampaignStoreShape } from "@hookgate/core/campaigns"
import { DeadLetterStore, type DeadLetterStoreShape, MessageLedger, type MessageLedgerShape } from "@hookgate/core/queue"
import { memoryAlertsOf } from "./memory-alert-store.js"
import { memoryCampaignStore, memoryDeadLetters, memoryMessageLedger } from "./memory-ledgers.js"

/** A fresh in-memory `MessageLedger`. */
export const makeMessageLedger = (): Effect.Effect<MessageLedgerShape> => Effect.sync(memoryMessageLedger)

/** A fresh in-memory `DeadLetterStore`. */
export const makeDeadLetters = (): Effect.Effect<DeadLetterStoreShape> => Effect.sync(memoryDeadLetters)

/** A fresh in-memory `CampaignStore`, storing a batch's alerts in `alerts` (a new map unless given). */
export const makeCampaignStore = (alerts?: Map<string, Alert>): Effect.Effect<CampaignStoreShape> =>
  Effect.sync(() => memoryCampaignStore(alerts))

/**
 * Fresh in-memory `MessageLedger`, `DeadLetterStore` and `CampaignStore`, on the
 * in-memory `AlertStore` in context (`MemoryStore.layer`'s or `MemoryAlertStore.layer`):
 * a campaign batch's alerts are stored with its results, as one database holds both.
 */
export const layer: Layer.Layer<MessageLedger | DeadLetterStore | CampaignStore, never, AlertStore> = Layer
  .effectContext(
    Effect.gen(function*() {
      const alerts = memoryAlertsOf(yield* AlertStore)
      if (alerts === undefined) {
        return yield* Effect.dieMessage(
          "MemoryLedgers.layer needs an in-memory AlertStore (MemoryStore.layer or MemoryAlertStore.layer): " +
            "a campaign batch's alerts are stored in the same step as its results"
        )
      }
      return Context.make(MessageLedger, memoryMessageLedger()).pipe(
        Context.add(DeadLetterStore, memoryDeadLetters()),
        Context.add(CampaignStore, memoryCampaignStore(alerts))
      )
    })
  )
