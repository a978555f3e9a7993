import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as EpochMillis from "../kernel/EpochMillis.js"
import type { StoreUnavailable } from "../kernel/store-errors.js"

/** The runs an operator sees the last of: the retry sweep and a reconciliation run. */
export const RunKind = Schema.Literal("sweep", "reconcile")
export type RunKind = typeof RunKind.Type

/** A finished run as stored: its kind, when it ran, and its report as JSON (`SweepReport`, `ReconcileReport`). */
export interface StoredRun {
  readonly kind: RunKind
  readonly startedAt: number
  readonly finishedAt: number
  readonly report: string
}

/** Where the last run of each kind is kept, for the console's overview and `GET /admin/runs`. */
export interface RunLogShape {
  /** Keeps `run` as its kind's last, unless a run that finished later is kept already (several gateways). */
  readonly record: (run: StoredRun) => Effect.Effect<void, StoreUnavailable>
  /** The last run of each kind recorded so far (none of a kind that never ran). */
  readonly last: Effect.Effect<ReadonlyArray<StoredRun>, StoreUnavailable>
}

/**
 * The run log. A reference whose default keeps none (the overview then says no run
 * was recorded); `SqlStore.layer()` provides a stored one, shared by every gateway on
 * the database and kept across restarts and Worker isolates, and `@hookgate/testing`'s
 * memory store an in-memory one.
 */
export class RunLog extends Context.Reference<RunLog>()("@hookgate/core/RunLog", {
  defaultValue: (): RunLogShape => ({ record: () => Effect.void, last: Effect.succeed([]) })
}) {
  /** An in-memory run log (tests, one process): a fresh one per call. */
  static makeMemory(): Effect.Effect<RunLogShape> {
    return Effect.sync(memoryRunLog)
  }

  /** An in-memory run log as the layer's `RunLog`, fresh each time the layer is built. */
  static layerMemory(): Layer.Layer<RunLog> {
    return Layer.effect(RunLog, RunLog.makeMemory())
  }
}

const memoryRunLog = (): RunLogShape => {
  const runs = new Map<RunKind, StoredRun>()
  return {
    record: (run) =>
      Effect.sync(() => {
        if ((runs.get(run.kind)?.finishedAt ?? -Infinity) <= run.finishedAt) runs.set(run.kind, run)
      }),
    last: Effect.sync(() => Array.from(runs.values()))
  }
}

/**
 * Keeps a finished run as its kind's last (the report encoded by `schema` as JSON).
 * A run log that cannot be written is logged, never the run's failure: the run did its work.
 */
export const recordRun = <A, I>(kind: RunKind, startedAt: number, schema: Schema.Schema<A, I>, report: A) =>
  Effect.gen(function*() {
    const log = yield* RunLog
    const finishedAt = yield* EpochMillis.now
    const json = yield* Schema.encode(Schema.parseJson(schema))(report)
    yield* log.record({ kind, startedAt, finishedAt, report: json })
  }).pipe(
    Effect.catchAll((error) => Effect.logWarning(`the ${kind} run could not be recorded for the console`, error))
  )
