import type { EventReceipt, Order, SweepReport } from "@hookgate/core"
import type { Alert } from "@hookgate/core/alerts"
import { Console } from "effect"

/** Aligned plain-text tables for the terminal. */
export const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>) => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)))
  const line = (cells: ReadonlyArray<string>) => cells.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd()
  return [line(header), ...rows.map(line)].join("\n")
}

const time = (ms: number | null) => (ms === null ? "-" : new Date(ms).toISOString())
const clip = (text: string | null, max = 60) => (text === null ? "-" : text.length > max ? `${text.slice(0, max - 1)}…` : text)

export const printOrders = (orders: ReadonlyArray<Order>) =>
  Console.log(
    orders.length === 0
      ? "no orders"
      : table(
        // `attempts` in the store counts recorded failures (a sent order shows 0): the column says so.
        // `source`: webhook, or reconcile (no webhook brought it: see `hookgate reconcile`).
        ["order", "status", "failures", "next attempt", "last error", "source"],
        orders.map((o) => [
          o.key,
          o.status,
          String(o.attempts),
          o.status === "pending" ? time(o.nextAttemptAt) : "-",
          clip(o.lastError),
          o.source
        ])
      )
  )

/** Verified paying events that made no order (`unfulfillable`, `malformed`), with why. */
export const printUnfulfilled = (receipts: ReadonlyArray<EventReceipt>) =>
  Console.log(
    receipts.length === 0
      ? "no paid events without an order"
      : table(
        ["received", "provider", "event", "object", "outcome", "error"],
        receipts.map((r) => [time(r.receivedAt), r.provider, r.eventId, r.objectId ?? "-", r.outcome, clip(r.detail, 80)])
      )
  )

export const printAlerts = (alerts: ReadonlyArray<Alert>) =>
  Console.log(
    alerts.length === 0
      ? "no alerts"
      : table(
        ["created", "kind", "order", "delivered", "attempts", "next attempt", "message"],
        alerts.map((a) => [
          time(a.createdAt),
          a.kind,
          a.orderKey ?? "-",
          a.deliveredAt !== null ? time(a.deliveredAt) : a.deliveryError !== null ? `failed: ${clip(a.deliveryError, 30)}` : "no",
          String(a.attempts),
          // A failed alert with no next attempt has had every attempt the cap allows: the operator's now.
          a.nextAttemptAt !== null ? time(a.nextAttemptAt) : a.deliveredAt === null && a.attempts > 0 ? "gave up" : "-",
          clip(a.message, 80)
        ])
      )
  )

export const printReport = (report: SweepReport) =>
  Console.log(table(["scanned", "sent", "failed", "capped", "held", "skipped", "alerts attempted", "alerts delivered"], [[
    String(report.scanned),
    String(report.sent),
    String(report.failed),
    String(report.capped),
    String(report.held),
    String(report.skipped),
    String(report.alertsAttempted),
    String(report.alertsDelivered)
  ]]))

/** What is known of an order's earlier attempts, before an operator acts on it. */
export const describeAttempts = (order: Order) =>
  [
    `order ${order.key}: ${order.status}, ${order.attempts} failed attempt(s) recorded`,
    `  last error:   ${order.lastError ?? "-"}`,
    `  message id:   ${order.messageId ?? "-"}`,
    `  uncertain:    ${
      order.uncertain
        ? "yes: an earlier attempt may have been accepted by the mailer; the buyer may already have this email"
        : "no"
    }`
  ].join("\n")
