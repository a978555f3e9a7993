-- 0001_init.sql: generated from @hookgate/store-sql's migrations; do not edit by hand.
-- Applied by `wrangler d1 migrations apply` or by @hookgate/store-d1's applyMigrations;
-- both record it in d1_migrations.

CREATE TABLE hookgate_orders (
  order_key TEXT PRIMARY KEY NOT NULL,
  provider TEXT NOT NULL,
  event_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  email TEXT NOT NULL,
  product TEXT,
  amount BIGINT NOT NULL,
  currency TEXT NOT NULL,
  metadata TEXT NOT NULL,
  payload_hash TEXT NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  next_attempt_at BIGINT NOT NULL,
  last_error TEXT,
  lease_token TEXT,
  lease_expires_at BIGINT,
  released_token TEXT,
  uncertain INTEGER NOT NULL,
  message_id TEXT,
  sent_at BIGINT,
  duplicates_prevented INTEGER NOT NULL,
  possible_duplicates INTEGER NOT NULL,
  leases_lost INTEGER NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);

CREATE INDEX hookgate_orders_due ON hookgate_orders (status, next_attempt_at);

CREATE INDEX hookgate_orders_created ON hookgate_orders (created_at);

CREATE TABLE hookgate_receipts (
  provider TEXT NOT NULL,
  event_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  order_key TEXT,
  outcome TEXT NOT NULL,
  received_at BIGINT NOT NULL,
  last_seen_at BIGINT NOT NULL,
  deliveries INTEGER NOT NULL,
  PRIMARY KEY (provider, event_id)
);

CREATE INDEX hookgate_receipts_order ON hookgate_receipts (order_key);

CREATE TABLE hookgate_alerts (
  alert_id TEXT PRIMARY KEY NOT NULL,
  kind TEXT NOT NULL,
  order_key TEXT,
  message TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  delivered_at BIGINT,
  delivery_error TEXT
);
