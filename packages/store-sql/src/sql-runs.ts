import * as SqlClient from "@effect/sql/SqlClient"
import type { RunLogShape } from "@hookgate/core"
import * as Effect from "effect/Effect"
import { decodeRun } from "./rows.js"
import { unavailable } from "./unavailable.js"

/**
 * The last run of each kind, one row per kind. `record` is one upsert that keeps the run
 * that finished last, so gateways sharing the database agree whatever order they write in.
 */
export const makeSqlRunLog = Effect.map(SqlClient.SqlClient, (sql): RunLogShape => ({
  record: (run) =>
    sql`INSERT INTO hookgate_runs (kind, started_at, finished_at, report)
VALUES (${run.kind}, ${run.startedAt}, ${run.finishedAt}, ${run.report})
ON CONFLICT (kind) DO UPDATE SET
  started_at = excluded.started_at, finished_at = excluded.finished_at, report = excluded.report
WHERE hookgate_runs.finished_at <= excluded.finished_at`.pipe(Effect.asVoid, unavailable("recordRun")),
  last: sql`SELECT kind, started_at, finished_at, report FROM hookgate_runs WHERE kind IN ('sweep', 'reconcile')`.pipe(
    Effect.map((rows) => rows.map(decodeRun)),
    unavailable("lastRuns")
  )
}))
