/**
 * The console's reads: orders newest first by status, by provider and by email (each
 * index ends in `created_at`, so a filtered page is read in order, not sorted), an
 * order's alerts, and an operator's resolution of an alert (when, and the note).
 */
export const statements: ReadonlyArray<string> = [
  `CREATE INDEX hookgate_orders_status_created ON hookgate_orders (status, created_at)`,
  `CREATE INDEX hookgate_orders_provider_created ON hookgate_orders (provider, created_at)`,
  `CREATE INDEX hookgate_orders_email_created ON hookgate_orders (email, created_at)`,
  `CREATE INDEX hookgate_alerts_order ON hookgate_alerts (order_key, created_at)`,
  `ALTER TABLE hookgate_alerts ADD COLUMN resolved_at BIGINT`,
  `ALTER TABLE hookgate_alerts ADD COLUMN resolution_note TEXT`
]
