-- 0012_attempt_notes.sql: generated from @hookgate/store-sql's migrations; do not edit by hand.
-- Applied by `wrangler d1 migrations apply` or by @hookgate/store-d1's applyMigrations;
-- both record it in d1_migrations.

ALTER TABLE hookgate_orders ADD COLUMN note_attempt INTEGER;

ALTER TABLE hookgate_orders ADD COLUMN note_outcome TEXT;

ALTER TABLE hookgate_orders ADD COLUMN note_error_class TEXT;

ALTER TABLE hookgate_orders ADD COLUMN note_detail TEXT;

ALTER TABLE hookgate_orders ADD COLUMN note_started_at BIGINT;

CREATE TRIGGER hookgate_orders_attempt_noted AFTER UPDATE OF note_attempt ON hookgate_orders
WHEN NEW.note_attempt IS NOT NULL AND OLD.lease_token IS NOT NULL
BEGIN
  INSERT INTO hookgate_attempts (order_key, lease_token, attempt, outcome, error_class, detail, started_at, recorded_at)
  VALUES (NEW.order_key, OLD.lease_token, NEW.note_attempt, NEW.note_outcome, NEW.note_error_class, NEW.note_detail,
    NEW.note_started_at, NEW.updated_at)
  ON CONFLICT DO NOTHING; END;
