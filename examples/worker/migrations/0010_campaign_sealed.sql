-- 0010_campaign_sealed.sql: generated from @hookgate/store-sql's migrations; do not edit by hand.
-- Applied by `wrangler d1 migrations apply` or by @hookgate/store-d1's applyMigrations;
-- both record it in d1_migrations.

ALTER TABLE hookgate_campaigns ADD COLUMN sealed INTEGER NOT NULL DEFAULT 1;

UPDATE hookgate_campaigns SET
  total = (SELECT COUNT(*) FROM hookgate_campaign_recipients r WHERE r.campaign_id = hookgate_campaigns.campaign_id),
  batches = ((SELECT COUNT(*) FROM hookgate_campaign_recipients r WHERE r.campaign_id = hookgate_campaigns.campaign_id)
    + batch_size - 1) / batch_size
WHERE state = 'draft';
