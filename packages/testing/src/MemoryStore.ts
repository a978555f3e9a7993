/**
 * An in-memory `OrderStore`, `Lease`, `AlertStore` and `RunLog` with the SQL store's
 * semantics (each operation one synchronous step, as each SQL statement is atomic):
 * `MemoryStore.make()` returns the services, `MemoryStore.layer` provides them.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Lease, OrderStore, RunLog } from "@hookgate/core"
import { AlertStore } from "@hookgate/core/alerts"
import { memoryStore } from "./memory-store.js"

/** A fresh in-memory store: `{ store, lease, alertStore, runLog }`, sharing one alert map. */
export const make = () => Effect.map(RunLog.makeMemory(), (runLog) => ({ ...memoryStore(), runLog }))

/** A fresh in-memory store providing `OrderStore`, `Lease`, `AlertStore` and `RunLog`. */
export const layer: Layer.Layer<OrderStore | Lease | AlertStore | RunLog> = Layer.effectContext(
  Effect.map(make(), ({ alertStore, lease, runLog, store }) =>
    Context.make(OrderStore, store).pipe(
      Context.add(Lease, lease),
      Context.add(AlertStore, alertStore),
      Context.add(RunLog, runLog)
    ))
)
