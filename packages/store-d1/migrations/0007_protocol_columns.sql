-- 0007_protocol_columns.sql: generated from @hookgate/store-sql's migrations; do not edit by hand.
-- Applied by `wrangler d1 migrations apply` or by @hookgate/store-d1's applyMigrations;
-- both record it in d1_migrations.

ALTER TABLE hookgate_orders ADD COLUMN uncertain_attempts INTEGER NOT NULL DEFAULT 0;

ALTER TABLE hookgate_campaign_recipients ADD COLUMN released_token TEXT;
