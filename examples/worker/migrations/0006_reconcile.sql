-- 0006_reconcile.sql: generated from @hookgate/store-sql's migrations; do not edit by hand.
-- Applied by `wrangler d1 migrations apply` or by @hookgate/store-d1's applyMigrations;
-- both record it in d1_migrations.

ALTER TABLE hookgate_orders ADD COLUMN source TEXT NOT NULL DEFAULT 'webhook';

CREATE TABLE hookgate_reconcile_cursors (
  provider TEXT PRIMARY KEY,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
