import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Alert } from "../alerts/alert.js"
import { AlertStore, type AlertStoreShape } from "../alerts/alert-store.js"

/**
 * An in-memory `AlertStore`. `alerts` is the map it keeps them in: the memory
 * order store shares it, so a release that caps an order stores its alert in
 * the same synchronous step, as the SQL store does in one atomic step.
 */
export const makeMemoryAlertStore = (alerts: Map<string, Alert> = new Map()): AlertStoreShape => ({
  save: (alert) =>
    Effect.sync(() => {
      if (alerts.has(alert.id)) return false
      alerts.set(alert.id, alert)
      return true
    }),
  recordAttempt: (id, { at, attempts, error, nextAttemptAt }) =>
    Effect.sync(() => {
      const alert = alerts.get(id)
      if (alert) {
        alerts.set(
          id,
          new Alert({ ...alert, deliveredAt: error === null ? at : alert.deliveredAt, deliveryError: error, attempts, nextAttemptAt })
        )
      }
    }),
  claimDue: (now, { limit, until }) =>
    Effect.sync(() => {
      const due = Array.from(alerts.values())
        .filter((a) => a.deliveredAt === null && a.nextAttemptAt !== null && a.nextAttemptAt <= now)
        .sort((a, b) => a.nextAttemptAt! - b.nextAttemptAt! || a.id.localeCompare(b.id))
        .slice(0, limit)
      return due.map((alert) => {
        const claimed = new Alert({ ...alert, nextAttemptAt: until })
        alerts.set(alert.id, claimed)
        return claimed
      })
    }),
  list: ({ limit, orderKey, state }) =>
    Effect.sync(() =>
      Array.from(alerts.values())
        .filter((a) => state === undefined || (state === "open") === (a.resolvedAt === null))
        .filter((a) => orderKey === undefined || a.orderKey === orderKey)
        .sort((a, b) => b.createdAt - a.createdAt || a.id.localeCompare(b.id))
        .slice(0, limit)
    ),
  resolve: (id, { at, note }) =>
    Effect.sync(() => {
      const alert = alerts.get(id)
      if (alert === undefined || alert.resolvedAt !== null) return false
      alerts.set(id, new Alert({ ...alert, resolvedAt: at, resolutionNote: note }))
      return true
    })
})

/** A fresh in-memory `AlertStore` on its own (campaigns, queues); `layerMemoryStore` provides one beside the orders. */
export const layerMemoryAlertStore: Layer.Layer<AlertStore> = Layer.sync(AlertStore, () => makeMemoryAlertStore())
