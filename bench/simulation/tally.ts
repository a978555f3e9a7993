import type { AlertStoreShape } from "@hookgate/core/alerts"
import type { OrderStoreShape } from "@hookgate/core"
import { Effect } from "effect"
import { addFaults, type FaultCounts } from "./faults.js"
import type { Inbox } from "./mailer.js"

/** What a run did to its orders, counted at quiescence. */
export interface OrderTally {
  readonly orders: number
  /** Emails that reached buyers. */
  readonly accepted: number
  /** Paid orders with neither an email nor an owner alert (capped or failed). */
  readonly lost: number
  /** Emails beyond one per order. */
  readonly duplicates: number
  /** Duplicates on orders with a possible-duplicate alert. */
  readonly flagged: number
  /** Duplicates on orders capped with an alert and marked uncertain (the capped alert does not say "duplicate"). */
  readonly cappedUncertain: number
  /** Duplicates the owner heard nothing about. */
  readonly unflagged: number
  readonly capped: number
  readonly failed: number
  readonly alerts: number
  readonly faults: FaultCounts
  /** Orders that got more than one email. */
  readonly ordersWithDuplicate: number
  /** Duplicate emails per 10^6 orders, and the 95% upper bound on orders with a duplicate per 10^6. */
  readonly duplicatesPerMillion: number
  readonly duplicateOrdersUpper95PerMillion: number
}

/** The Wilson score upper bound (95%) of a binomial proportion. */
export const wilsonUpper = (hits: number, n: number, z = 1.96) => {
  if (n === 0) return 1
  const p = hits / n
  const denominator = 1 + (z * z) / n
  const centre = p + (z * z) / (2 * n)
  const margin = z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))
  return Math.min(1, (centre + margin) / denominator)
}

export const tallyOrders = (
  store: OrderStoreShape,
  alertStore: AlertStoreShape,
  shard: { readonly first: number; readonly last: number },
  inbox: Inbox,
  faults: FaultCounts
) =>
  Effect.gen(function*() {
    const orders = shard.last - shard.first
    const rows = new Map((yield* store.list({ limit: orders * 2 })).map((o) => [o.key, o]))
    const alerts = yield* alertStore.list({ limit: orders * 10 })
    const alerted = (kind: string) => new Set(alerts.filter((a) => a.kind === kind).map((a) => a.orderKey))
    const possibleDuplicate = alerted("possible_duplicate")
    const cappedAlert = alerted("capped")
    const failedAlert = alerted("failed")
    let accepted = 0, lost = 0, duplicates = 0, flagged = 0, cappedUncertain = 0, unflagged = 0, withDuplicate = 0
    for (let i = shard.first; i < shard.last; i++) {
      const key = `sim:o${i}`
      const emails = inbox.emails.get(`o${i}@sim.example`) ?? 0
      accepted += emails
      const ownerAlerted = cappedAlert.has(key) || failedAlert.has(key)
      if (emails === 0 && !ownerAlerted) lost++
      if (emails > 1) {
        const extra = emails - 1
        duplicates += extra
        withDuplicate++
        if (possibleDuplicate.has(key)) flagged += extra
        else if (cappedAlert.has(key) && rows.get(key)?.uncertain === true) cappedUncertain += extra
        else unflagged += extra
      }
    }
    const statuses = [...rows.values()]
    return {
      orders,
      accepted,
      lost,
      duplicates,
      flagged,
      cappedUncertain,
      unflagged,
      capped: statuses.filter((o) => o.status === "capped").length,
      failed: statuses.filter((o) => o.status === "failed").length,
      alerts: alerts.length,
      faults: { ...faults },
      ordersWithDuplicate: withDuplicate,
      duplicatesPerMillion: (duplicates / orders) * 1e6,
      duplicateOrdersUpper95PerMillion: wilsonUpper(withDuplicate, orders) * 1e6
    } satisfies OrderTally
  })

/** Two tallies of disjoint orders as one. */
export const addTallies = (a: OrderTally, b: OrderTally): OrderTally => {
  const sum = (key: "orders" | "accepted" | "lost" | "duplicates" | "flagged" | "cappedUncertain" | "unflagged" | "capped" | "failed" | "alerts" | "ordersWithDuplicate") =>
    a[key] + b[key]
  const orders = sum("orders"), duplicates = sum("duplicates"), ordersWithDuplicate = sum("ordersWithDuplicate")
  return {
    orders,
    accepted: sum("accepted"),
    lost: sum("lost"),
    duplicates,
    flagged: sum("flagged"),
    cappedUncertain: sum("cappedUncertain"),
    unflagged: sum("unflagged"),
    capped: sum("capped"),
    failed: sum("failed"),
    alerts: sum("alerts"),
    faults: addFaults(a.faults, b.faults),
    ordersWithDuplicate,
    duplicatesPerMillion: (duplicates / orders) * 1e6,
    duplicateOrdersUpper95PerMillion: wilsonUpper(ordersWithDuplicate, orders) * 1e6
  }
}
