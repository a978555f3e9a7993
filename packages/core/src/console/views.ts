import type { Alert } from "../alerts/alert.js"
import type { Attempt } from "../orders/attempt.js"
import type { LastRun, LastRuns } from "../orders/last-runs.js"
import type { EventReceipt, Order } from "../orders/order.js"
import type { ReconcileReport } from "../orders/reconcile.js"
import type { SweepReport } from "../orders/sweep.js"

/** Epoch ms as an ISO time without a zero fraction; blank for none. */
export const iso = (ms: number | null | undefined) =>
  ms === null || ms === undefined ? "" : new Date(ms).toISOString().replace(".000Z", "Z")

const took = (run: LastRun<unknown>) => `${((run.finishedAt - run.startedAt) / 1000).toFixed(1)} s`

/** The overview's last sweep and last reconciliation run (null until one ran; `report` null when unreadable). */
export const lastRunsView = (runs: LastRuns) => ({
  sweep: runs.sweep === null ? null : sweepView(runs.sweep),
  reconcile: runs.reconcile === null ? null : reconcileView(runs.reconcile)
})

const sweepView = (run: LastRun<SweepReport>) => ({
  finished: iso(run.finishedAt),
  took: took(run),
  report: run.report
})

const reconcileView = (run: LastRun<ReconcileReport>) => ({
  finished: iso(run.finishedAt),
  took: took(run),
  report: run.report === null ? null : {
    none: run.report.providers.length === 0,
    providers: run.report.providers.map((p) => ({ ...p, since: iso(p.since), cursor: iso(p.cursor) })),
    skipped: run.report.skipped
  }
})

const ATTEMPT_LABEL: Readonly<Record<Attempt["outcome"], string>> = {
  sent: "sent",
  retry: "failed, to be retried",
  capped: "failed, the cap reached",
  failed: "failed for good",
  held: "held, not counted (the mailer is misconfigured)",
  lease_lost: "finished after its lease was taken over (not recorded on the order)",
  unknown: "an outcome this release does not know"
}

/** One line of an order's timeline. */
interface Entry {
  readonly at: number
  readonly kind: string
  readonly label: string
  readonly detail: string
  readonly note?: string
}

/**
 * An order's timeline, oldest first: received, each attempt (its outcome, error class and
 * error, from the attempt history), receipts, alerts. An order from before the history was
 * kept has no attempt rows: it shows its count of failed attempts with the last error, and
 * when it was sent, as the order row has them.
 */
export const timelineView = (
  order: Order,
  attempts: ReadonlyArray<Attempt>,
  receipts: ReadonlyArray<EventReceipt & { readonly deliveries: number }>,
  alerts: ReadonlyArray<Alert>
) => {
  const tried: ReadonlyArray<Entry> = attempts.length > 0
    ? [...attempts].reverse().map((a) => ({
      at: a.recordedAt,
      kind: `attempt ${a.outcome}`,
      label: `attempt ${a.number}: ${ATTEMPT_LABEL[a.outcome]}${a.errorClass === null ? "" : ` (${a.errorClass})`}`,
      detail: a.detail ?? "",
      note: `started ${iso(a.startedAt)}`
    }))
    : [
      ...(order.attempts > 0 || order.lastError !== null
        ? [{
          at: order.updatedAt,
          kind: "attempt",
          label: `${order.attempts} failed attempt${order.attempts === 1 ? "" : "s"}`,
          detail: order.lastError ?? ""
        }]
        : []),
      ...(order.sentAt === null ? [] : [{ at: order.sentAt, kind: "sent", label: "sent", detail: order.messageId ?? "" }])
    ]
  const entries: ReadonlyArray<Entry> = [
    { at: order.createdAt, kind: "received", label: "received", detail: `${order.eventType} (${order.eventId})` },
    ...tried,
    ...receipts.map((r) => ({
      at: r.receivedAt,
      kind: "receipt",
      label: `event ${r.outcome}${r.deliveries > 1 ? ` ×${r.deliveries}` : ""}`,
      detail: `${r.eventType} (${r.eventId})${r.detail === null ? "" : `: ${r.detail}`}`
    })),
    ...alerts.map((a) => ({
      at: a.createdAt,
      kind: "alert",
      label: `alert ${a.kind}${a.resolvedAt === null ? "" : " (resolved)"}`,
      detail: a.message
    }))
  ]
  // A stable sort: at one millisecond, an attempt stays before the alert it raised.
  return [...entries].sort((a, b) => a.at - b.at).map((entry) => ({ ...entry, at: iso(entry.at) }))
}
