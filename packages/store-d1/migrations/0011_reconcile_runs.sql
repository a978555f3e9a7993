-- 0011_reconcile_runs.sql: generated from @hookgate/store-sql's migrations; do not edit by hand.
-- Applied by `wrangler d1 migrations apply` or by @hookgate/store-d1's applyMigrations;
-- both record it in d1_migrations.

CREATE TABLE hookgate_reconcile_positions (
  provider TEXT PRIMARY KEY,
  created_at BIGINT NOT NULL,
  event_id TEXT NOT NULL,
  updated_at BIGINT NOT NULL
);

CREATE TABLE hookgate_reconcile_alerted (
  provider TEXT NOT NULL,
  order_key TEXT NOT NULL,
  alerted_at BIGINT NOT NULL,
  PRIMARY KEY (provider, order_key)
);
