import * as Effect from "effect/Effect"
import { Alert, type AlertStoreShape } from "@hookgate/core/alerts"

// Each in-memory alert store's map, for the memory ledgers built on it (`memoryAlertsOf`).
const maps = new WeakMap<AlertStoreShape, Map<string, Alert>>()

/**
 * The map an in-memory `AlertStore` keeps its alerts in (undefined for any other
 * store): the memory campaign ledger writes a batch's alerts there in the same
 * synchronous step as its results.
 */
export const memoryAlertsOf = (store: AlertStoreShape): Map<string, Alert> | undefined => maps.get(store)

/** Stores an alert unless one with its id is there (`ON CONFLICT (alert_id) DO NOTHING`). */
export const storeAlertOnce = (alerts: Map<string, Alert>, alert: Alert) => {
  if (!alerts.has(alert.id)) alerts.set(alert.id, alert)
}

/**
 * An in-memory `AlertStore`. `alerts` is the map it keeps them in: the memory
 * order store and campaign ledger share it, so a release that caps an order (a
 * record that fails a recipient) stores its alert in the same synchronous step,
 * as the SQL store does in one atomic step.
 */
export const memoryAlertStore = (alerts: Map<string, Alert> = new Map()): AlertStoreShape => {
  const store = makeAlertStore(alerts)
  maps.set(store, alerts)
  return store
}

const makeAlertStore = (alerts: Map<string, Alert>): AlertStoreShape => ({
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
  claimDue: (now, { limit, maxAttempts, staleBefore, until }) =>
    Effect.sync(() => {
      const dueAt = (a: Alert) => a.nextAttemptAt ?? a.createdAt
      const due = Array.from(alerts.values())
        .filter((a) =>
          a.deliveredAt === null && a.attempts < maxAttempts &&
          (a.nextAttemptAt === null ? a.createdAt <= staleBefore : a.nextAttemptAt <= now)
        )
        .sort((a, b) => dueAt(a) - dueAt(b) || a.id.localeCompare(b.id))
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
