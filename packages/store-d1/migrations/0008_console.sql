-- 0008_console.sql: generated from @hookgate/store-sql's migrations; do not edit by hand.
-- Applied by `wrangler d1 migrations apply` or by @hookgate/store-d1's applyMigrations;
-- both record it in d1_migrations.

CREATE INDEX hookgate_orders_status_created ON hookgate_orders (status, created_at);

CREATE INDEX hookgate_orders_provider_created ON hookgate_orders (provider, created_at);

CREATE INDEX hookgate_orders_email_created ON hookgate_orders (email, created_at);

CREATE INDEX hookgate_alerts_order ON hookgate_alerts (order_key, created_at);

ALTER TABLE hookgate_alerts ADD COLUMN resolved_at BIGINT;

ALTER TABLE hookgate_alerts ADD COLUMN resolution_note TEXT;
