import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { StoreUnavailable } from "../kernel/store-errors.js"

/**
 * Where an unfinished run got to: it took, oldest first (by `created`, then by event
 * id, so objects created at the same instant keep one order), every object of its
 * window up to and including this one.
 */
export interface ReconcilePosition {
  /** The object's `created` (epoch ms). */
  readonly created: number
  /** Its event id: the tie-break among objects created at the same instant. */
  readonly id: string
}

/** Whether `a` comes at or before `b` in a run's order (`created`, then id). */
export const atOrBefore = (a: ReconcilePosition, b: ReconcilePosition): boolean =>
  a.created < b.created || (a.created === b.created && a.id <= b.id)

/**
 * Where each provider's reconciliation stands: the cursor (the newest `created` a
 * finished run saw) and, while a run has not finished, the position it got to.
 */
export interface ReconcileCursorsShape {
  /** The provider's cursor (epoch ms), or None before its first finished run. */
  readonly get: (provider: string) => Effect.Effect<Option.Option<number>, StoreUnavailable>
  /** Moves the cursor to `created` unless it already stands later (never backwards, so concurrent runs agree). */
  readonly advance: (provider: string, created: number, now: number) => Effect.Effect<void, StoreUnavailable>
  /** The position an unfinished run got to, or None when the last run finished. */
  readonly progress: (provider: string) => Effect.Effect<Option.Option<ReconcilePosition>, StoreUnavailable>
  /** Records the position a running run got to (it is kept if the run dies). */
  readonly keepProgress: (provider: string, position: ReconcilePosition, now: number) => Effect.Effect<void, StoreUnavailable>
  /** Forgets the position: a run finished its window. */
  readonly clearProgress: (provider: string) => Effect.Effect<void, StoreUnavailable>
  /** Which of these order keys an earlier run already named in an owner alert (a detect-only provider's). */
  readonly alerted: (provider: string, keys: ReadonlyArray<string>) => Effect.Effect<ReadonlySet<string>, StoreUnavailable>
  /** Records that an owner alert named these order keys (a key recorded already is left as it was). */
  readonly recordAlerted: (provider: string, keys: ReadonlyArray<string>, now: number) => Effect.Effect<void, StoreUnavailable>
}

/**
 * The cursors. A reference whose default keeps none, so every run looks back its
 * full window (correct, only slower) and a detect-only provider's keys are named
 * again by each run (noisier); `SqlStore.layer()` provides stored ones,
 * and `/testing` an in-memory one.
 */
export class ReconcileCursors extends Context.Reference<ReconcileCursors>()("@hookgate/core/ReconcileCursors", {
  defaultValue: (): ReconcileCursorsShape => ({
    get: () => Effect.succeedNone,
    advance: () => Effect.void,
    progress: () => Effect.succeedNone,
    keepProgress: () => Effect.void,
    clearProgress: () => Effect.void,
    alerted: () => Effect.succeed(new Set<string>()),
    recordAlerted: () => Effect.void
  })
}) {
  /** In-memory cursors (tests, one process): a fresh set per call. */
  static makeMemory(): Effect.Effect<ReconcileCursorsShape> {
    return Effect.sync(memoryCursors)
  }

  /** In-memory cursors as the layer's `ReconcileCursors`, fresh each time the layer is built. */
  static layerMemory(): Layer.Layer<ReconcileCursors> {
    return Layer.effect(ReconcileCursors, ReconcileCursors.makeMemory())
  }
}

const memoryCursors = (): ReconcileCursorsShape => {
  const cursors = new Map<string, number>()
  const positions = new Map<string, ReconcilePosition>()
  const named = new Set<string>()
  return {
    get: (provider) => Effect.sync(() => Option.fromNullable(cursors.get(provider))),
    advance: (provider, created) =>
      Effect.sync(() => {
        if ((cursors.get(provider) ?? -Infinity) < created) cursors.set(provider, created)
      }),
    progress: (provider) => Effect.sync(() => Option.fromNullable(positions.get(provider))),
    keepProgress: (provider, position) => Effect.sync(() => void positions.set(provider, { created: position.created, id: position.id })),
    clearProgress: (provider) => Effect.sync(() => void positions.delete(provider)),
    alerted: (provider, keys) => Effect.sync(() => new Set(keys.filter((key) => named.has(`${provider}\u0000${key}`)))),
    recordAlerted: (provider, keys) => Effect.sync(() => keys.forEach((key) => named.add(`${provider}\u0000${key}`)))
  }
}
