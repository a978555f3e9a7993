/**
 * An in-memory `AlertStore` on its own (campaigns, queues); `MemoryStore` provides
 * one beside the orders.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type Alert, AlertStore, type AlertStoreShape } from "@hookgate/core/alerts"
import { memoryAlertStore } from "./memory-alert-store.js"

/** A fresh in-memory `AlertStore`, keeping its alerts in `alerts` (a new map unless given). */
export const make = (alerts?: Map<string, Alert>): Effect.Effect<AlertStoreShape> => Effect.sync(() => memoryAlertStore(alerts))

/** A fresh in-memory `AlertStore` as the layer's. */
export const layer: Layer.Layer<AlertStore> = Layer.sync(AlertStore, () => memoryAlertStore())
