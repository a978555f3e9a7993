-- 0005_whole_millis.sql: generated from @hookgate/store-sql's migrations; do not edit by hand.
-- Applied by `wrangler d1 migrations apply` or by @hookgate/store-d1's applyMigrations;
-- both record it in d1_migrations.

UPDATE hookgate_orders SET next_attempt_at = CAST(next_attempt_at AS BIGINT), lease_expires_at = CAST(lease_expires_at AS BIGINT), sent_at = CAST(sent_at AS BIGINT), created_at = CAST(created_at AS BIGINT), updated_at = CAST(updated_at AS BIGINT)
WHERE next_attempt_at <> CAST(next_attempt_at AS BIGINT) OR lease_expires_at <> CAST(lease_expires_at AS BIGINT) OR sent_at <> CAST(sent_at AS BIGINT) OR created_at <> CAST(created_at AS BIGINT) OR updated_at <> CAST(updated_at AS BIGINT);

UPDATE hookgate_receipts SET received_at = CAST(received_at AS BIGINT), last_seen_at = CAST(last_seen_at AS BIGINT)
WHERE received_at <> CAST(received_at AS BIGINT) OR last_seen_at <> CAST(last_seen_at AS BIGINT);

UPDATE hookgate_alerts SET created_at = CAST(created_at AS BIGINT), delivered_at = CAST(delivered_at AS BIGINT), next_attempt_at = CAST(next_attempt_at AS BIGINT)
WHERE created_at <> CAST(created_at AS BIGINT) OR delivered_at <> CAST(delivered_at AS BIGINT) OR next_attempt_at <> CAST(next_attempt_at AS BIGINT);

UPDATE hookgate_messages SET lease_expires_at = CAST(lease_expires_at AS BIGINT), created_at = CAST(created_at AS BIGINT), updated_at = CAST(updated_at AS BIGINT), completed_at = CAST(completed_at AS BIGINT)
WHERE lease_expires_at <> CAST(lease_expires_at AS BIGINT) OR created_at <> CAST(created_at AS BIGINT) OR updated_at <> CAST(updated_at AS BIGINT) OR completed_at <> CAST(completed_at AS BIGINT);

UPDATE hookgate_dead_letters SET received_at = CAST(received_at AS BIGINT)
WHERE received_at <> CAST(received_at AS BIGINT);

UPDATE hookgate_campaigns SET created_at = CAST(created_at AS BIGINT), updated_at = CAST(updated_at AS BIGINT)
WHERE created_at <> CAST(created_at AS BIGINT) OR updated_at <> CAST(updated_at AS BIGINT);

UPDATE hookgate_campaign_recipients SET lease_expires_at = CAST(lease_expires_at AS BIGINT), sent_at = CAST(sent_at AS BIGINT)
WHERE lease_expires_at <> CAST(lease_expires_at AS BIGINT) OR sent_at <> CAST(sent_at AS BIGINT);
