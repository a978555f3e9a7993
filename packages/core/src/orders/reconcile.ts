import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { newAlert, raiseAlert } from "../alerts/raise.js"
import * as EpochMillis from "../kernel/EpochMillis.js"
import { fulfilmentHash } from "../kernel/fulfilment.js"
import { leaseTermsFrom } from "../kernel/lease-protocol.js"
import { spanWhenTraced } from "../kernel/spans.js"
import * as Metrics from "../observability/Metrics.js"
import { Providers, type WebhookProvider } from "../providers/providers.js"
import type { PulledEvent, ReconcileError, ReconcileSource } from "../providers/reconcile.js"
import { NewOrder } from "./order.js"
import { OrderStore } from "./order-store.js"
import { fulfilmentOf } from "./receive.js"
import { atOrBefore, ReconcileCursors, type ReconcilePosition } from "./reconcile-cursors.js"
import { reconcileDetectOnly } from "./reconcile-detect.js"
import { errorOf, logStopped, ProviderReconcileSummary, type ReconcileOptions, windowOf } from "./reconcile-window.js"
import { recordRun } from "./run-log.js"
import { sendLeased } from "./send-leased.js"

/** What a run did, provider by provider; `skipped` names the providers that cannot reconcile, and why. */
export class ReconcileReport extends Schema.Class<ReconcileReport>("ReconcileReport")({
  dryRun: Schema.Boolean,
  providers: Schema.Array(ProviderReconcileSummary),
  skipped: Schema.Array(Schema.Struct({ provider: Schema.String, reason: Schema.String }))
}) {
  /** Paid orders that arrived only through this run, over every provider. */
  get newOrders(): number {
    return this.providers.reduce((sum, p) => sum + p.new, 0)
  }
  /** Whether some provider's run stopped early. */
  get failed(): boolean {
    return this.providers.some((p) => p.error !== null)
  }
}

export { CURSOR_OVERLAP, DEFAULT_LOOKBACK, ProviderReconcileSummary, type ReconcileOptions } from "./reconcile-window.js"

type Classified = {
  readonly kind: "known" | "new" | "unpaid" | "unfulfillable" | "failed"
  readonly created: number
  readonly key?: string
}

/** One pulled event through the webhook's decoding and, when it pays, the store + lease + send path. */
const classify = (provider: WebhookProvider, pulled: PulledEvent, dryRun: boolean) =>
  Effect.gen(function*() {
    const { created, event } = pulled
    const decoded = yield* fulfilmentOf(provider, event).pipe(
      Effect.map(Either.right),
      Effect.catchTag("MalformedPayload", (error) => Effect.succeed(Either.left(error)))
    )
    if (Either.isLeft(decoded)) {
      yield* Effect.logWarning("a pulled paying object could not be turned into an order").pipe(
        Effect.annotateLogs({ provider: provider.name, eventId: event.id, detail: decoded.left.detail })
      )
      return { kind: "unfulfillable", created } satisfies Classified
    }
    if (Option.isNone(decoded.right)) return { kind: "unpaid", created } satisfies Classified
    const fulfilment = decoded.right.value
    const store = yield* OrderStore
    if (dryRun) {
      const stored = yield* store.get(fulfilment.orderKey)
      return { kind: Option.isSome(stored) ? "known" : "new", created, key: fulfilment.orderKey } satisfies Classified
    }
    const order = new NewOrder({
      provider: provider.name,
      eventId: event.id,
      eventType: event.type,
      fulfilment,
      payloadHash: yield* fulfilmentHash(fulfilment),
      source: "reconcile"
    }, true) // built from a decoded fulfilment and the provider's own event
    const put = yield* store.put(order, yield* leaseTermsFrom(yield* EpochMillis.now))
    if (put._tag !== "Stored") {
      // Already there (sent, pending for the sweep, or another run's): the lease and the sweep own it.
      if (put._tag === "Conflict") {
        yield* Effect.logWarning("a pulled order differs from the one stored under its key").pipe(
          Effect.annotateLogs({ provider: provider.name, orderKey: order.key })
        )
      }
      return { kind: "known", created, key: order.key } satisfies Classified
    }
    yield* sendLeased(put.leased)
    return { kind: "new", created, key: order.key } satisfies Classified
  }).pipe(
    // One object the store could not take does not end the run: the rest go on, the cursor
    // stays (the next run reads this one again), and the summary counts it.
    Effect.catchTag("StoreUnavailable", (error) =>
      Effect.as(
        Effect.logWarning("a pulled order could not be stored; the next run reads it again").pipe(
          Effect.annotateLogs({ provider: provider.name, eventId: pulled.event.id, operation: error.operation })
        ),
        { kind: "failed", created: pulled.created } satisfies Classified
      ))
  )

const emptyCounts = { seen: 0, known: 0, new: 0, unpaid: 0, unfulfillable: 0, failed: 0 }

/** A run's order: oldest first, and among objects created at the same instant, by event id. */
const oldestFirst = (a: PulledEvent, b: PulledEvent) =>
  a.created - b.created || (a.event.id < b.event.id ? -1 : a.event.id > b.event.id ? 1 : 0)
const positionOf = (pulled: PulledEvent): ReconcilePosition => ({ created: pulled.created, id: pulled.event.id })

/**
 * One provider: list the window, then take its objects oldest first, recording the
 * position reached after each, so a run that dies (or whose store fails) leaves the
 * next one to continue where it stopped rather than from the newest again. The
 * cursor moves, and the position is forgotten, when the whole window was taken.
 */
const reconcileProvider = (provider: WebhookProvider, source: ReconcileSource, options: ReconcileOptions) =>
  Effect.gen(function*() {
    const cursors = yield* ReconcileCursors
    const now = yield* EpochMillis.now
    const dryRun = options.dryRun === true
    const { after, since, tracks } = yield* windowOf(provider.name, options, now)
    // The whole window first (providers list newest first, Stripe only so): a listing
    // that fails is taken as far as it came, with no position kept (it may have gaps).
    const pulled: Array<PulledEvent> = []
    const listed = yield* source.list(since).pipe(
      Stream.runForEach((event) => Effect.sync(() => void pulled.push(event))),
      Effect.as(Option.none<ReconcileError>()),
      Effect.catchTag("ReconcileError", (error) => Effect.succeed(Option.some(error)))
    )
    pulled.sort(oldestFirst)
    const newest = pulled.reduce((max, p) => Math.max(max, p.created), -Infinity)
    const todo = Option.match(after, {
      onNone: () => pulled,
      onSome: (position) => pulled.filter((p) => !atOrBefore(positionOf(p), position))
    })
    const keeps = tracks && !dryRun && Option.isNone(listed)
    const counts = { ...emptyCounts }
    yield* Stream.fromIterable(todo).pipe(
      // Ordered: results arrive in the run's order, so each is the end of a taken prefix.
      Stream.mapEffect((p) => Effect.map(classify(provider, p, dryRun), (c) => [p, c] as const), {
        concurrency: options.concurrency ?? 4
      }),
      Stream.runForEach(([p, c]) =>
        Effect.suspend(() => {
          counts.seen++
          counts[c.kind]++
          // After an object the store could not take, the position stays before it.
          return keeps && counts.failed === 0 ? cursors.keepProgress(provider.name, positionOf(p), now) : Effect.void
        })
      )
    )
    const finished = Option.isNone(listed) && counts.failed === 0
    if (finished && !dryRun) {
      if (Number.isFinite(newest)) yield* cursors.advance(provider.name, newest, now)
      // After the cursor: a run dying between the two reads again from the position, never less.
      if (tracks) yield* cursors.clearProgress(provider.name)
    }
    const cursor = yield* cursors.get(provider.name)
    yield* Effect.all([
      Metrics.reconciled(provider.name, "known", counts.known),
      Metrics.reconciled(provider.name, "new", dryRun ? 0 : counts.new),
      Metrics.reconciled(provider.name, "unpaid", counts.unpaid),
      Metrics.reconciled(provider.name, "unfulfillable", counts.unfulfillable)
    ], { discard: true })
    const error = Option.isSome(listed) ? errorOf(listed.value) : null
    if (error !== null) yield* logStopped(provider.name, error)
    return new ProviderReconcileSummary({
      provider: provider.name,
      since,
      seen: counts.seen,
      known: counts.known,
      new: counts.new,
      unpaid: counts.unpaid,
      unfulfillable: counts.unfulfillable,
      failed: counts.failed,
      cursor: Option.getOrNull(cursor),
      error
    })
  }).pipe(spanWhenTraced("reconcile", { provider: provider.name }))

/**
 * Reconciliation: every mounted provider that can list its paid objects
 * (`WebhookProvider.reconcile`) is read from its cursor, less an overlap (the
 * first run: `since`, default 72 h back); each object goes through the webhook's
 * own decoding and, when it pays, the same path as its webhook: `OrderStore.put`
 * already leased, then the same send. An order already stored is left to the
 * lease and the sweep, so a pull and a webhook, or several runs at once, make
 * one order and one email. When paid orders arrived only this way, one
 * `webhooks_missing` alert tells the owner, per run. A finished run (not a dry run) is
 * kept in the `RunLog` as the last reconciliation.
 */
export const reconcile = (options: ReconcileOptions = {}) =>
  Effect.gen(function*() {
    const registry = yield* Providers
    const started = yield* EpochMillis.now
    const names = options.providers ?? (yield* registry.names)
    const summaries: Array<ProviderReconcileSummary> = []
    const skipped: Array<{ provider: string; reason: string }> = []
    for (const name of names) {
      const provider = yield* registry.get(name)
      const source = provider.reconcile
      if (source === undefined || source._tag === "CannotReconcile") {
        skipped.push({ provider: name, reason: source?.reason ?? "the plugin offers no listing" })
        continue
      }
      summaries.push(
        yield* (source._tag === "DetectOnly"
          ? reconcileDetectOnly(provider.name, source, options)
          : reconcileProvider(provider, source, options))
      )
    }
    const report = new ReconcileReport({ dryRun: options.dryRun === true, providers: summaries, skipped })
    if (!report.dryRun && report.newOrders > 0) {
      const now = yield* EpochMillis.now
      const count = report.newOrders
      const where = summaries.filter((s) => s.new > 0).map((s) => `${s.provider}: ${s.new}`).join(", ")
      yield* raiseAlert(newAlert({
        id: `webhooks_missing:${now}:${where}`,
        kind: "webhooks_missing",
        orderKey: null,
        message: `${count} paid order${count === 1 ? "" : "s"} arrived only through reconciliation: ` +
          `check the webhook endpoint and secret (${where})`
      }, now))
    }
    // Kept as the last run (the console's overview); a dry run changed nothing, so it is not.
    if (!report.dryRun) yield* recordRun("reconcile", started, ReconcileReport, report)
    return report
  })
