import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Lease, OrderStore, StoreUnavailable } from "@hookgate/core"
import { AlertStore } from "@hookgate/core/alerts"

export interface StoreFaults {
  /** The first n `put` calls fail with `StoreUnavailable` (nothing is written). */
  readonly failPut?: number
  /** The first n `complete` calls fail with `StoreUnavailable` (nothing is written). */
  readonly failComplete?: number
  /** The first n `AlertStore.recordAttempt` calls fail with `StoreUnavailable` (nothing is written). */
  readonly failRecordAttempt?: number
}

const failFirst = (count: number | undefined, operation: string) => {
  let remaining = count ?? 0
  return <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | StoreUnavailable, R> =>
    Effect.suspend((): Effect.Effect<A, E | StoreUnavailable, R> =>
      remaining > 0
        ? (remaining--, Effect.fail(new StoreUnavailable({ operation: `${operation} (injected fault)` })))
        : effect
    )
}

/** Wraps any store layer so that chosen operations fail, for the paths that follow a storage outage. */
export const withStoreFaults = <E, R>(
  base: Layer.Layer<OrderStore | Lease | AlertStore, E, R>,
  faults: StoreFaults
): Layer.Layer<OrderStore | Lease | AlertStore, E, R> =>
  Layer.effectContext(
    Effect.gen(function*() {
      const store = yield* OrderStore
      const lease = yield* Lease
      const put = failFirst(faults.failPut, "put")
      const complete = failFirst(faults.failComplete, "complete")
      const alerts = yield* AlertStore
      const recordAttempt = failFirst(faults.failRecordAttempt, "recordAlertAttempt")
      return Context.make(OrderStore, { ...store, put: (...args) => put(store.put(...args)) }).pipe(
        Context.add(Lease, { ...lease, complete: (...args) => complete(lease.complete(...args)) }),
        Context.add(AlertStore, { ...alerts, recordAttempt: (...args) => recordAttempt(alerts.recordAttempt(...args)) })
      )
    })
  ).pipe(Layer.provide(base))
