import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import {
  Attempt,
  type AttemptNote,
  type EventReceipt,
  type LeaseShape,
  newLeasedOrder,
  Order,
  type OrderStatus,
  type OrderStoreShape,
  type StoreStats
} from "@hookgate/core"
import type { Alert } from "@hookgate/core/alerts"
import { memoryAlertStore, storeAlertOnce } from "./memory-alert-store.js"

/**
 * An in-memory `OrderStore`, `Lease` and `AlertStore` (sharing one alert map)
 * with the SQL store's semantics: each
 * operation reads and writes in one synchronous step, as each SQL statement is
 * atomic. For tests and examples; nothing survives the process.
 */
export const memoryStore = () => {
  const orders = new Map<string, Order>()
  const receipts = new Map<string, EventReceipt & { deliveries: number }>()
  const alerts = new Map<string, Alert>()
  const lastSeen = new Map<string, number>() // receipt id → when its event was last delivered
  // Each order's attempt history, keyed by order key then lease token (one row per lease).
  const attempts = new Map<string, Map<string, Attempt>>()
  const keepAttempt = (key: string, token: string, now: number, note: AttemptNote | undefined) => {
    if (note === undefined) return
    const rows = attempts.get(key) ?? new Map<string, Attempt>()
    attempts.set(key, rows)
    if (rows.has(token)) return
    rows.set(
      token,
      new Attempt({
        orderKey: key,
        number: note.number,
        outcome: note.outcome,
        errorClass: note.errorClass,
        detail: note.detail,
        startedAt: note.startedAt,
        recordedAt: now
      })
    )
  }

  const update = (order: Order, changes: Partial<ConstructorParameters<typeof Order>[0]>) => {
    const next = new Order({ ...order, ...changes }, true) // fields already valid
    orders.set(order.key, next)
    return next
  }
  const leaseFree = (order: Order, now: number) =>
    order.leaseToken === null || (order.leaseExpiresAt !== null && order.leaseExpiresAt <= now)

  // What `prune` may delete (the SQL stores' rules, `store-sql/src/sql-prune.ts`).
  const finishedBefore = (order: Order, before: number) =>
    (order.status === "sent" || order.status === "failed" || order.status === "capped") && order.leaseToken === null &&
    order.createdAt < before &&
    !Array.from(alerts.values()).some((alert) => alert.orderKey === order.key && alert.resolvedAt === null)
  const receiptAlone = (id: string, receipt: EventReceipt, before: number) =>
    receipt.orderKey === null && (lastSeen.get(id) ?? receipt.receivedAt) < before
  const alertAlone = (alert: Alert, before: number) => alert.orderKey === null && alert.resolvedAt !== null && alert.createdAt < before
  const prunableNow = (before: number) => {
    const gone = new Set(Array.from(orders.values()).filter((o) => finishedBefore(o, before)).map((o) => o.key))
    return {
      orders: gone,
      receipts: Array.from(receipts.entries())
        .filter(([id, r]) => (r.orderKey !== null && gone.has(r.orderKey)) || receiptAlone(id, r, before))
        .map(([id]) => id),
      alerts: Array.from(alerts.values())
        .filter((a) => (a.orderKey !== null && gone.has(a.orderKey) && a.resolvedAt !== null) || alertAlone(a, before))
        .map((a) => a.id),
      attempts: Array.from(gone).reduce((n, key) => n + (attempts.get(key)?.size ?? 0), 0)
    }
  }

  const store: OrderStoreShape = {
    prune: (before, { limit }) =>
      Effect.sync(() => {
        const batch = Array.from(orders.values())
          .filter((o) => finishedBefore(o, before))
          .sort((a, b) => a.createdAt - b.createdAt)
          .slice(0, limit)
          .map((o) => o.key)
        const gone = new Set(batch)
        let receiptCount = 0
        let alertCount = 0
        let attemptCount = 0
        for (const key of batch) {
          orders.delete(key)
          attemptCount += attempts.get(key)?.size ?? 0
          attempts.delete(key)
        }
        for (const [id, receipt] of receipts) {
          if (receipt.orderKey !== null && gone.has(receipt.orderKey)) {
            receipts.delete(id)
            receiptCount++
          }
        }
        for (const [id, alert] of alerts) {
          if (alert.orderKey !== null && gone.has(alert.orderKey) && alert.resolvedAt !== null) {
            alerts.delete(id)
            alertCount++
          }
        }
        for (const [id] of Array.from(receipts).filter(([id, r]) => receiptAlone(id, r, before)).slice(0, limit)) {
          receipts.delete(id)
          receiptCount++
        }
        for (const alert of Array.from(alerts.values()).filter((a) => alertAlone(a, before)).slice(0, limit)) {
          alerts.delete(alert.id)
          alertCount++
        }
        return { orders: batch.length, receipts: receiptCount, alerts: alertCount, attempts: attemptCount }
      }),
    prunable: (before) =>
      Effect.sync(() => {
        const { alerts, attempts, orders, receipts } = prunableNow(before)
        return { orders: orders.size, receipts: receipts.length, alerts: alerts.length, attempts }
      }),
    put: (incoming, { now, token, until }) =>
      Effect.sync(() => {
        const existing = orders.get(incoming.key)
        if (existing) {
          return existing.payloadHash === incoming.payloadHash
            ? { _tag: "AlreadyStored" as const, order: existing }
            : { _tag: "Conflict" as const, existing }
        }
        const order = newLeasedOrder(incoming, { token, now, until })
        orders.set(order.key, order)
        return { _tag: "Stored" as const, leased: { token, order } }
      }),
    get: (key) => Effect.sync(() => Option.fromNullable(orders.get(key))),
    due: (now, { limit, maxAttempts }) =>
      Effect.sync(() =>
        Array.from(orders.values())
          .filter((o) => o.status === "pending" && o.nextAttemptAt <= now && o.attempts < maxAttempts && leaseFree(o, now))
          .sort((a, b) => a.nextAttemptAt - b.nextAttemptAt || a.key.localeCompare(b.key))
          .slice(0, limit)
          .map((o) => o.key)
      ),
    list: ({ after, limit, provider, search, status }) =>
      Effect.sync(() =>
        Array.from(orders.values())
          .filter((o) => status === undefined || o.status === status)
          .filter((o) => provider === undefined || o.provider === provider)
          .filter((o) =>
            search === undefined || o.key === search || o.fulfilment.email === search ||
            o.fulfilment.email === search.toLowerCase()
          )
          .filter((o) => after === undefined || o.createdAt < after.createdAt || (o.createdAt === after.createdAt && o.key > after.key))
          .sort((a, b) => b.createdAt - a.createdAt || a.key.localeCompare(b.key))
          .slice(0, limit)
      ),
    recordReceipt: (receipt) =>
      Effect.sync(() => {
        const id = `${receipt.provider}\u0000${receipt.eventId}`
        const seen = receipts.get(id)
        lastSeen.set(id, receipt.receivedAt)
        receipts.set(id, {
          ...receipt,
          receivedAt: seen?.receivedAt ?? receipt.receivedAt,
          deliveries: (seen?.deliveries ?? 0) + 1
        } as EventReceipt & { deliveries: number })
      }),
    receipts: ({ limit, orderKey, outcomes }) =>
      Effect.sync(() =>
        Array.from(receipts.values())
          .filter((r) => orderKey === undefined || r.orderKey === orderKey)
          .filter((r) => outcomes === undefined || outcomes.includes(r.outcome))
          .slice(0, limit)
      ),
    notePrevented: (key) =>
      Effect.sync(() => {
        const order = orders.get(key)
        if (order) update(order, { duplicatesPrevented: order.duplicatesPrevented + 1 })
      }),
    noteLeaseLost: (key, lost) =>
      Effect.sync(() => {
        const order = orders.get(key)
        if (order) update(order, { leasesLost: order.leasesLost + 1 })
        if (order && lost !== undefined) keepAttempt(key, lost.token, lost.now, lost.attempt)
      }),
    attempts: (key, { limit }) =>
      Effect.sync(() =>
        Array.from(attempts.get(key)?.values() ?? [])
          .sort((a, b) => b.recordedAt - a.recordedAt || b.number - a.number) // newest first, as the SQL stores
          .slice(0, limit)
      ),
    requeue: (key, now) =>
      Effect.sync(() => {
        const order = orders.get(key)
        if (!order || (order.status !== "capped" && order.status !== "failed")) return Option.none()
        return Option.some(update(order, { status: "pending", attempts: 0, nextAttemptAt: now, updatedAt: now }))
      }),
    stats: Effect.sync((): StoreStats => {
      const counts: Record<OrderStatus, number> = { pending: 0, sent: 0, failed: 0, capped: 0, unknown: 0 }
      let duplicatesPrevented = 0
      let possibleDuplicates = 0
      let leasesLost = 0
      for (const order of orders.values()) {
        counts[order.status]++
        duplicatesPrevented += order.duplicatesPrevented
        possibleDuplicates += order.possibleDuplicates
        leasesLost += order.leasesLost
      }
      return {
        orders: counts,
        duplicatesPrevented,
        possibleDuplicates,
        leasesLost,
        alerts: alerts.size,
        alertsUndelivered: Array.from(alerts.values()).filter((alert) => alert.deliveredAt === null).length,
        receipts: receipts.size
      }
    })
  }

  const lease: LeaseShape = {
    acquire: (key, { dueOnly, maxAttempts, now, token, until }) =>
      Effect.sync(() => {
        const order = orders.get(key)
        if (
          !order || order.status !== "pending" || order.attempts >= maxAttempts || !leaseFree(order, now) ||
          (dueOnly && order.nextAttemptAt > now)
        ) return Option.none()
        const leased = update(order, {
          leaseToken: token,
          leaseExpiresAt: until,
          // An expired lease that was never released: its holder may have sent.
          uncertain: order.uncertain || order.leaseToken !== null,
          uncertainAttempts: order.uncertainAttempts + (order.leaseToken !== null ? 1 : 0),
          updatedAt: now
        })
        return Option.some({ token, order: leased })
      }),
    complete: (key, token, receipt, { attempt, mailerHonoursKeys, now }) =>
      Effect.sync(() => {
        const order = orders.get(key)
        if (!order || order.leaseToken !== token) return Option.none()
        const possibleDuplicate = order.uncertain && !mailerHonoursKeys
        update(order, {
          status: "sent",
          messageId: receipt.messageId,
          sentAt: now,
          leaseToken: null,
          leaseExpiresAt: null,
          lastError: null,
          possibleDuplicates: order.possibleDuplicates + (possibleDuplicate ? 1 : 0),
          updatedAt: now
        })
        keepAttempt(key, token, now, attempt)
        return Option.some({ possibleDuplicate })
      }),
    release: (key, token, failure) =>
      Effect.sync(() => {
        const order = orders.get(key)
        if (!order || order.leaseToken !== token) return false
        update(order, {
          status: failure.status,
          attempts: failure.attempts,
          lastError: failure.error,
          nextAttemptAt: failure.nextAttemptAt,
          leaseToken: null,
          leaseExpiresAt: null,
          uncertain: order.uncertain || failure.uncertain,
          uncertainAttempts: order.uncertainAttempts + (failure.uncertain ? 1 : 0),
          updatedAt: failure.now
        })
        keepAttempt(key, token, failure.now, failure.attempt)
        if (Option.isSome(failure.alert)) storeAlertOnce(alerts, failure.alert.value)
        return true
      })
  }

  return { store, lease, alertStore: memoryAlertStore(alerts) }
}
