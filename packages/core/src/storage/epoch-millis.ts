import * as Option from "effect/Option"
import { Alert } from "../alerts/alert.js"
import type { AlertStoreShape } from "../alerts/alert-store.js"
import type { CampaignStoreShape } from "../campaigns/campaign-store.js"
import type { LeaseShape } from "../orders/lease.js"
import { EventReceipt } from "../orders/order.js"
import type { OrderStoreShape } from "../orders/order-store.js"
import type { DeadLetterStoreShape } from "../queue/dead-letters.js"
import { DeadLetter } from "../queue/message.js"
import type { MessageLedgerShape } from "../queue/message-ledger.js"

/**
 * Every time a store keeps is a whole epoch millisecond. Effect's `Clock` gives
 * whole milliseconds on a real clock, but a `TestClock` moved by a fraction, or a
 * jittered `Schedule` delay added to one, gives a fraction: Postgres refuses it in a
 * BIGINT column and SQLite would keep it as a REAL. So each store's services take
 * their times through these wrappers, which floor them: a due time floored makes a
 * retry due at most 1 ms early, and a lease floored ends at most 1 ms early, which
 * the lease token makes harmless (only its holder writes the record).
 */

/** A time as a store keeps it: epoch milliseconds, floored to a whole number. */
export const of = (millis: number): number => Math.floor(millis)

const allWhole = <T extends object>(value: T, keys: ReadonlyArray<keyof T>) => {
  for (const key of keys) {
    const time = value[key]
    if (typeof time === "number" && !Number.isInteger(time)) return false
  }
  return true
}

/** `value` with the number `keys` floored; the same object when they are whole already (no copy on the usual path). */
const floored = <T extends object>(value: T, keys: ReadonlyArray<keyof T>, rebuild: (fields: T) => T = (fields) => fields): T => {
  if (allWhole(value, keys)) return value
  const fields = { ...value }
  for (const key of keys) {
    const time = value[key]
    if (typeof time === "number") fields[key] = Math.floor(time) as T[keyof T]
  }
  return rebuild(fields)
}

const ALERT_TIMES = ["createdAt", "deliveredAt", "nextAttemptAt"] as const
const alert = (value: Alert) => floored(value, ALERT_TIMES, (fields) => new Alert(fields, true))
const NOW = ["now"] as const
const NOW_UNTIL = ["now", "until"] as const

// Every method is listed (no spread), so a method added to a port must be placed here.

/** The order store, taking its times floored. */
export const orderStore = (store: OrderStoreShape): OrderStoreShape => ({
  put: (order, lease) => store.put(order, floored(lease, NOW_UNTIL)),
  get: store.get,
  due: (now, options) => store.due(of(now), options),
  list: store.list,
  recordReceipt: (receipt) =>
    store.recordReceipt(floored(receipt, ["receivedAt"], (fields) => new EventReceipt(fields, true))),
  receipts: store.receipts,
  notePrevented: store.notePrevented,
  noteLeaseLost: store.noteLeaseLost,
  requeue: (key, now) => store.requeue(key, of(now)),
  stats: store.stats
})

/** The order lease, taking its times floored. */
export const lease = (self: LeaseShape): LeaseShape => ({
  acquire: (key, options) => self.acquire(key, floored(options, NOW_UNTIL)),
  complete: (key, token, receipt, options) => self.complete(key, token, receipt, floored(options, NOW)),
  release: (key, token, failure) =>
    self.release(key, token, {
      ...floored(failure, ["now", "nextAttemptAt"]),
      alert: Option.map(failure.alert, alert)
    })
})

/** The alert store, taking its times floored. */
export const alertStore = (store: AlertStoreShape): AlertStoreShape => ({
  save: (value) => store.save(alert(value)),
  recordAttempt: (id, result) => store.recordAttempt(id, floored(result, ["at", "nextAttemptAt"])),
  claimDue: (now, options) => store.claimDue(of(now), floored(options, ["until", "staleBefore"])),
  list: store.list
})

/** The message ledger, taking its times floored. */
export const messageLedger = (ledger: MessageLedgerShape): MessageLedgerShape => ({
  acquire: (key, options) => ledger.acquire(key, floored(options, NOW_UNTIL)),
  complete: (key, token, options) => ledger.complete(key, token, floored(options, NOW)),
  release: (key, token, failure) => ledger.release(key, token, floored(failure, NOW)),
  get: ledger.get
})

/** The dead-letter store, taking its times floored. */
export const deadLetters = (store: DeadLetterStoreShape): DeadLetterStoreShape => ({
  put: (letter) => store.put(floored(letter, ["receivedAt"], (fields) => new DeadLetter(fields, true))),
  list: store.list
})

/** The campaign ledger, taking its times floored. */
export const campaignStore = (store: CampaignStoreShape): CampaignStoreShape => ({
  create: (campaign) => store.create(floored(campaign, NOW)),
  replace: (campaign) => store.replace(floored(campaign, NOW)),
  discard: store.discard,
  addRecipients: store.addRecipients,
  seal: (id, now) => store.seal(id, of(now)),
  get: store.get,
  list: store.list,
  transition: (id, options) => store.transition(id, floored(options, NOW)),
  counts: store.counts,
  openBatches: store.openBatches,
  reserve: (id, batch, options) => store.reserve(id, batch, floored(options, NOW_UNTIL)),
  record: (id, batch, token, results, now) => store.record(id, batch, token, results, of(now)),
  notePrevented: store.notePrevented
})
