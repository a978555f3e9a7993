-- 0009_history.sql: generated from @hookgate/store-sql's migrations; do not edit by hand.
-- Applied by `wrangler d1 migrations apply` or by @hookgate/store-d1's applyMigrations;
-- both record it in d1_migrations.

CREATE TABLE hookgate_attempts (
  order_key TEXT NOT NULL,
  lease_token TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  outcome TEXT NOT NULL,
  error_class TEXT,
  detail TEXT,
  started_at BIGINT NOT NULL,
  recorded_at BIGINT NOT NULL,
  PRIMARY KEY (order_key, lease_token)
);

CREATE TABLE hookgate_runs (
  kind TEXT PRIMARY KEY,
  started_at BIGINT NOT NULL,
  finished_at BIGINT NOT NULL,
  report TEXT NOT NULL
);
