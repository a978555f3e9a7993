/**
 * What the console shows of the past: each order's attempt history (one row per lease
 * whose end was recorded: written in the same atomic step as the order's state, so the
 * two never disagree; orders older than this migration have none), and the last run of
 * the sweep and of reconciliation (one row per kind, its report as JSON).
 */
export const statements: ReadonlyArray<string> = [
  `CREATE TABLE hookgate_attempts (
  order_key TEXT NOT NULL,
  lease_token TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  outcome TEXT NOT NULL,
  error_class TEXT,
  detail TEXT,
  started_at BIGINT NOT NULL,
  recorded_at BIGINT NOT NULL,
  PRIMARY KEY (order_key, lease_token)
)`,
  `CREATE TABLE hookgate_runs (
  kind TEXT PRIMARY KEY,
  started_at BIGINT NOT NULL,
  finished_at BIGINT NOT NULL,
  report TEXT NOT NULL
)`
]
