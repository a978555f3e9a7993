-- 0003_receipt_detail.sql: generated from @hookgate/store-sql's migrations; do not edit by hand.
-- Applied by `wrangler d1 migrations apply` or by @hookgate/store-d1's applyMigrations;
-- both record it in d1_migrations.

ALTER TABLE hookgate_receipts ADD COLUMN detail TEXT;

ALTER TABLE hookgate_receipts ADD COLUMN object_id TEXT;
