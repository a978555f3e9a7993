import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type { StoreUnavailable } from "../kernel/store-errors.js"
import { ReconcileReport } from "./reconcile.js"
import { RunLog, type StoredRun } from "./run-log.js"
import { SweepReport } from "./sweep.js"

/** A recorded run with its report read back; `report` is null when it cannot be (a newer release's shape). */
export interface LastRun<A> {
  readonly startedAt: number
  readonly finishedAt: number
  readonly report: A | null
}

/** The last sweep and the last reconciliation run recorded, each null until one ran. */
export interface LastRuns {
  readonly sweep: LastRun<SweepReport> | null
  readonly reconcile: LastRun<ReconcileReport> | null
}

const read = <A, I>(runs: ReadonlyArray<StoredRun>, kind: StoredRun["kind"], schema: Schema.Schema<A, I>): LastRun<A> | null => {
  const run = runs.find((r) => r.kind === kind)
  if (run === undefined) return null
  const report = Schema.decodeUnknownEither(Schema.parseJson(schema))(run.report)
  return { startedAt: run.startedAt, finishedAt: run.finishedAt, report: Either.getOrNull(report) }
}

/** The last runs from the `RunLog` (the console's overview, `GET /admin/runs`). */
export const lastRuns: Effect.Effect<LastRuns, StoreUnavailable> = Effect.map(
  Effect.flatMap(RunLog, (log) => log.last),
  (runs) => ({ sweep: read(runs, "sweep", SweepReport), reconcile: read(runs, "reconcile", ReconcileReport) })
)
