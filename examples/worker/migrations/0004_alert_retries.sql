-- 0004_alert_retries.sql: generated from @hookgate/store-sql's migrations; do not edit by hand.
-- Applied by `wrangler d1 migrations apply` or by @hookgate/store-d1's applyMigrations;
-- both record it in d1_migrations.

ALTER TABLE hookgate_alerts ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;

ALTER TABLE hookgate_alerts ADD COLUMN next_attempt_at BIGINT;

CREATE INDEX hookgate_alerts_due ON hookgate_alerts (next_attempt_at);

UPDATE hookgate_alerts SET attempts = 1, next_attempt_at = created_at
WHERE delivered_at IS NULL AND delivery_error IS NOT NULL;
