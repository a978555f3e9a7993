import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { newAlert, raiseAlert } from "../alerts/raise.js"
import { sha256Hex } from "../kernel/digest.js"
import * as EpochMillis from "../kernel/EpochMillis.js"
import { spanWhenTraced } from "../kernel/spans.js"
import * as Metrics from "../observability/Metrics.js"
import type { DetectOnly, ListedPayment, ReconcileError } from "../providers/reconcile.js"
import { OrderStore } from "./order-store.js"
import { ReconcileCursors } from "./reconcile-cursors.js"
import { errorOf, logStopped, ProviderReconcileSummary, type ReconcileOptions, windowOf } from "./reconcile-window.js"

/** A run's order: oldest first, then by the listed object's id. */
const oldestFirst = (a: ListedPayment, b: ListedPayment) => a.created - b.created || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

/** How an order is named in the alert: its key, and the buyer and the amount when known. */
const describe = (payment: ListedPayment, email: Option.Option<string>) => {
  const about = [
    ...Option.toArray(email),
    ...(payment.amount === undefined ? [] : [`${payment.amount}${payment.currency === undefined ? "" : ` ${payment.currency}`}`]),
    ...(payment.product === undefined ? [] : [payment.product])
  ]
  return about.length === 0 ? payment.orderKey : `${payment.orderKey} (${about.join(", ")})`
}

/** The buyer's email, or none when the lookup fails (the alert still names the order key). */
const emailOf = (provider: string, source: DetectOnly, payment: ListedPayment) =>
  source.emailOf(payment).pipe(
    Effect.catchTag("ReconcileError", (error) =>
      Effect.as(
        Effect.logWarning("the buyer's email of an unsendable order could not be read").pipe(
          Effect.annotateLogs({ provider, orderKey: payment.orderKey, reason: error.reason, detail: error.detail })
        ),
        Option.none<string>()
      ))
  )

/**
 * The owner alert of one run: the paid orders hookgate never received that no earlier
 * alert named. Its id is the digest of the keys it names, so runs at once that find
 * the same orders store one alert; the keys are recorded after it is stored, so a run
 * dying between the two names them again rather than never.
 */
const alertOwner = (provider: string, source: DetectOnly, orders: ReadonlyArray<ListedPayment>, now: number) =>
  Effect.gen(function*() {
    const named = yield* Effect.forEach(orders, (p) => Effect.map(emailOf(provider, source, p), (email) => describe(p, email)), {
      concurrency: 4
    })
    const keys = orders.map((p) => p.orderKey)
    const n = orders.length
    yield* raiseAlert(newAlert({
      id: `orders_unsendable:${provider}:${yield* sha256Hex(keys.join("\n"))}`,
      kind: "orders_unsendable",
      orderKey: n === 1 ? keys[0]! : null,
      message: `${n} paid ${source.label} order${n === 1 ? "" : "s"} never reached hookgate by webhook and cannot be sent ` +
        `from the API (${source.reason}): resend ${n === 1 ? "its webhook" : "their webhooks"} from ${source.label}'s dashboard, ` +
        `or fulfil ${n === 1 ? "it" : "them"} by hand: ${named.join("; ")}`
    }, now))
    yield* Effect.flatMap(ReconcileCursors, (cursors) => cursors.recordAlerted(provider, keys, now))
  })

/**
 * One detect-only provider (`reconcileDetectOnly`): list the window, look each paid
 * order key up in the store, and name the ones it does not know in one owner alert,
 * each key once across runs (`ReconcileCursors.alerted`). Nothing is stored or sent:
 * the provider's API cannot rebuild what its webhook carries. The cursor moves when
 * the whole window was read and every lookup answered.
 */
export const reconcileDetectOnly = (provider: string, source: DetectOnly, options: ReconcileOptions) =>
  Effect.gen(function*() {
    const cursors = yield* ReconcileCursors
    const store = yield* OrderStore
    const now = yield* EpochMillis.now
    const dryRun = options.dryRun === true
    const { since } = yield* windowOf(provider, options, now)
    const listed: Array<ListedPayment> = []
    const failure = yield* source.list(since).pipe(
      Stream.runForEach((payment) => Effect.sync(() => void listed.push(payment))),
      Effect.as(Option.none<ReconcileError>()),
      Effect.catchTag("ReconcileError", (error) => Effect.succeed(Option.some(error)))
    )
    listed.sort(oldestFirst)
    const paid = listed.filter((p) => p.paid)
    // One entry per order key (an order may be listed with several payments).
    const byKey = new Map(paid.map((p) => [p.orderKey, p]))
    const looked = yield* Effect.forEach(byKey.values(), (p) =>
      store.get(p.orderKey).pipe(
        Effect.map((stored) => (Option.isSome(stored) ? "known" as const : p)),
        Effect.catchTag("StoreUnavailable", () => Effect.succeed("failed" as const))
      ), { concurrency: options.concurrency ?? 4 })
    const unknown = looked.filter((l): l is ListedPayment => typeof l !== "string")
    const known = looked.filter((l) => l === "known").length
    const failed = looked.filter((l) => l === "failed").length
    const before = yield* cursors.alerted(provider, unknown.map((p) => p.orderKey))
    const fresh = unknown.filter((p) => !before.has(p.orderKey))
    if (!dryRun && fresh.length > 0) yield* alertOwner(provider, source, fresh, now)
    if (Option.isNone(failure) && failed === 0 && !dryRun && listed.length > 0) {
      yield* cursors.advance(provider, listed[listed.length - 1]!.created, now)
    }
    yield* Effect.all([
      Metrics.reconciled(provider, "known", known),
      Metrics.reconciled(provider, "unpaid", listed.length - paid.length),
      Metrics.reconciled(provider, "unsendable", unknown.length)
    ], { discard: true })
    const error = Option.isSome(failure) ? errorOf(failure.value) : null
    if (error !== null) yield* logStopped(provider, error)
    return new ProviderReconcileSummary({
      provider,
      since,
      seen: listed.length,
      known,
      new: 0,
      unpaid: listed.length - paid.length,
      unfulfillable: 0,
      failed,
      unsendable: unknown.length,
      alerted: fresh.length,
      cursor: Option.getOrNull(yield* cursors.get(provider)),
      error
    })
  }).pipe(spanWhenTraced("reconcile", { provider }))
