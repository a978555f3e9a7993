/**
 * Reconciliation: each order's source (`webhook`, or `reconcile` when a run pulled it
 * from the provider before any webhook came; every order stored before is a webhook's),
 * and each provider's cursor (the newest `created` a finished run saw, epoch ms).
 */
export const statements: ReadonlyArray<string> = [
  `ALTER TABLE hookgate_orders ADD COLUMN source TEXT NOT NULL DEFAULT 'webhook'`,
  `CREATE TABLE hookgate_reconcile_cursors (
  provider TEXT PRIMARY KEY,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
)`
]
