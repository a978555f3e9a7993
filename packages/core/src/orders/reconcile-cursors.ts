import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { StoreUnavailable } from "../kernel/store-errors.js"

/** Where each provider's reconciliation cursor is kept: the newest `created` a finished run saw. */
export interface ReconcileCursorsShape {
  /** The provider's cursor (epoch ms), or None before its first finished run. */
  readonly get: (provider: string) => Effect.Effect<Option.Option<number>, StoreUnavailable>
  /** Moves the cursor to `created` unless it already stands later (never backwards, so concurrent runs agree). */
  readonly advance: (provider: string, created: number, now: number) => Effect.Effect<void, StoreUnavailable>
}

/**
 * The cursors. A reference whose default keeps none, so every run looks back its
 * full window (correct, only slower); `SqlStore.layer()` provides stored ones,
 * and `/testing` an in-memory one.
 */
export class ReconcileCursors extends Context.Reference<ReconcileCursors>()("@hookgate/core/ReconcileCursors", {
  defaultValue: (): ReconcileCursorsShape => ({ get: () => Effect.succeedNone, advance: () => Effect.void })
}) {}

/** In-memory cursors (tests, one process). */
export const makeMemoryCursors = (): ReconcileCursorsShape => {
  const cursors = new Map<string, number>()
  return {
    get: (provider) => Effect.sync(() => Option.fromNullable(cursors.get(provider))),
    advance: (provider, created) =>
      Effect.sync(() => {
        if ((cursors.get(provider) ?? -Infinity) < created) cursors.set(provider, created)
      })
  }
}
